# model counted
# sim: steady
# sim: kernels 2
# sim: dram 0.5
# sim: speedup 1.2
import torch
