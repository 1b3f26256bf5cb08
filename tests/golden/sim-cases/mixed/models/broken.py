# model broken
# sim: kernels 2
# sim: clash
# sim: baseline wrong autotune
# sim: error verify
import torch
