# model tiny
# sim: steady
# sim: time 100000
# sim: kernels 1
# sim: pointwise
# sim: host 0.25
# sim: flops 1 1
# sim: speedup 1.5
import torch
