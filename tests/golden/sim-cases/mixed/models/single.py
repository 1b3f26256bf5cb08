# model single
# sim: kernels 2
# sim: pointwise
# sim: speedup 1.3
# sim: steady
import torch
batch_size = 16
dim = 4096
