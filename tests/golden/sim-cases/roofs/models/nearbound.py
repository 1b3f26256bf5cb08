# model nearbound
# sim: steady
# sim: time 100000
# sim: kernels 1
# sim: host 0.25
# sim: flops 2
# sim: overstated 1.02
# sim: speedup 1.5
import torch
