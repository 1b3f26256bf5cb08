# model net
# sim: group
# sim: pointwise
# sim: weights 1 2 4 8 16 32 64
# sim: speedup 1.5
# sim: steady
# sim: time 1000000
# sim: misfit triton_poi_fused_add_mul_5
# sim: conv
# sim: params 4096
# sim: fast autotune-cd-radius-2 1.5
import torch
