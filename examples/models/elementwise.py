"""Elementwise chain: x * sigmoid(x) + 0.5 * gelu(x) - tanh(x).

Inductor fuses the whole chain into one pointwise Triton kernel that reads x
once and writes the result once, so it should already run at the copy
bandwidth; the analyst is expected to say so and leave it alone.
x: 8192 x 16384 float32 (512 MiB), output the same.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * torch.sigmoid(x) + 0.5 * F.gelu(x) - torch.tanh(x)


rows = 8192
cols = 16384


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
