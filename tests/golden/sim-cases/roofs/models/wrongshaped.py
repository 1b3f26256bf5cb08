# model wrongshaped
# sim: steady
# sim: kernels 2
# sim: pointwise
# sim: baseline wrong default
import torch
batch_size = 16
dim = 4096
