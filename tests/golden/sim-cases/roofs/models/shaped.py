# model shaped
# sim: steady
# sim: kernels 2
# sim: pointwise
# sim: speedup 1.3
# sim: reject batch_size=4
import torch
batch_size = 16
dim = 4096
