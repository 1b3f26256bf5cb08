# model looped
# sim: kernels 1
# sim: reductions
# sim: looped
# sim: knob onepass=welford
import torch
