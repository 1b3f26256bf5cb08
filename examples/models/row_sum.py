"""Sum over the last dimension (a row reduction, Inductor's INNER hint).

Reads 1 GiB and writes 64 KiB: purely bandwidth-bound; the reduction's
block size and the number of rows per program decide how close it gets to
the copy bandwidth.
x: 16384 x 16384 float32 (1 GiB), output 16384.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x, dim=-1)


rows = 16384
cols = 16384


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
