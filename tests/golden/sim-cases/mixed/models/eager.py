# model eager
# sim: kernels 3
# sim: reductions
# sim: eager 2
# sim: wins R0_BLOCK=512
# sim: baseline accurate autotune
import torch
