# model light
# sim: steady
# sim: time 100000
# sim: kernels 2
# sim: host 0.25
# sim: flops 2
# sim: speedup 1.5
# sim: fast autotune 2
import torch
