# model first
# sim: kernels 2
# sim: steady
# sim: fast autotune 1.2
import torch
