# model hosty
# sim: host 0.7
# sim: kernels 2
# sim: steady
# sim: fast autotune-cudagraphs 2
# sim: launches none
import torch
