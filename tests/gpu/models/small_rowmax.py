# tests/gpu/models/small_rowmax.py: a max over the middle dimension of
# batch_size x 512 x 1023, with a module-level batch size that a spec's
# shapes set (KernelBench format), for tests/gpu/static_shapes.py.
import torch
import torch.nn as nn

batch_size = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.max(x, dim=1)[0]


def get_inputs():
    return [torch.randn(batch_size, 512, 1023)]


def get_init_inputs():
    return []
