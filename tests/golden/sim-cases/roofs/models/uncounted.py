# model uncounted
# sim: steady
# sim: kernels 1
# sim: dram error
import torch
