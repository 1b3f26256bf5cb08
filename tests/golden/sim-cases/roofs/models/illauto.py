# model illauto
# sim: steady
# sim: kernels 2
# sim: baseline ill autotune
# sim: speedup 1.3
import torch
