"""Mean over the first dimension (a column reduction, Inductor's OUTER hint).

The reduced dimension is the strided one: each output element reads a
column. Inductor may split the reduction into two kernels; tiling and the
split factor are the knobs.
x: 16384 x 8192 float32 (512 MiB), output 8192.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.mean(x, dim=0)


rows = 16384
cols = 8192


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
