# tests/gpu/aten_auto.d/row_sum.py: a row sum (KernelBench format). With the
# test double beside it, its ATen-fallback variant sums in float16.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x).sum(dim=-1) * 0.5


def get_inputs():
    return [torch.randn(4096, 4096)]


def get_init_inputs():
    return []
