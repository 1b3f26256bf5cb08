# model autospace
# sim: steady
# sim: kernels 2
# sim: conv
# sim: dwconv
# sim: params 1000
# sim: host 0.6
# sim: speedup 1.2
import torch
