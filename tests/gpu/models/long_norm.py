# tests/gpu/models/long_norm.py: a layer norm over rows of 65536 and an L1
# norm over rows of 65535 (KernelBench format; level 1's 38 has such rows):
# each looped reduction reads its row twice, and the rows are too long to
# hold, so the later loop walking back (rloop=reverse, runtime/python/kopt/
# transforms.py) with fewer rows in flight (grid) reads what the first loop
# left in L2 (tests/gpu/transforms.py).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x, y):
        return F.layer_norm(x, (x.shape[-1],)), y / torch.mean(torch.abs(y), dim=1, keepdim=True)


def get_inputs():
    return [torch.rand(4096, 65536), torch.rand(4096, 65535)]


def get_init_inputs():
    return []
