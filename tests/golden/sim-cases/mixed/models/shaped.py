# model shaped
# sim: kernels 2
# sim: pointwise
# sim: speedup 1.3
# sim: steady
# sim: slower batch_size=64
import torch
batch_size = 16
dim = 4096
