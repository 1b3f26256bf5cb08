"""A small MLP block: x + fc2(gelu(fc1(x))).

Two GEMMs (cuBLAS) with Triton epilogues: bias + GELU after the first, bias
+ residual add after the second.
x: 4096 x 4096 float32 (64 MiB); hidden 4096 x 8192 (128 MiB); weights
4096 x 8192 and 8192 x 4096 (128 MiB each); output 4096 x 4096.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(x)))


tokens = 4096
dim = 4096
hidden = 8192


def get_inputs():
    return [torch.randn(tokens, dim)]


def get_init_inputs():
    return [dim, hidden]
