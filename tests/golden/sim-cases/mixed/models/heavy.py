# model heavy
# sim: steady
# sim: time 100000
# sim: kernels 2
# sim: host 0.25
# sim: flops 146
# sim: dram 3
# sim: speedup 1.5 0.9
# sim: fast autotune 2
import torch
