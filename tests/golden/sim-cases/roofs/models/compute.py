# model compute
# sim: steady
# sim: time 100000
# sim: kernels 1
# sim: host 0.25
# sim: flops 146
# sim: speedup 1.5
import torch
