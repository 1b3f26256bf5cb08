# model nolaunch
# sim: steady
# sim: time 100000
# sim: kernels 1
# sim: host 0.25
# sim: flops 2
# sim: launches none
# sim: speedup 1.5
import torch
