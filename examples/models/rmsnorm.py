"""RMSNorm in bfloat16, computed in float32 (as LLaMA-style models do).

The project's half-precision example: the gates use the bf16 tolerances
(atol = rtol = 1e-2 by default) and the fp64 fallback's multiplier of 3.
A row reduction of squares, a reciprocal square root and a scale by the
weight, with casts in and out of float32.
x: 65536 x 4096 bfloat16 (512 MiB); weight: 4096 bfloat16.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter((1.0 + 0.1 * torch.randn(hidden)).to(torch.bfloat16))

    def forward(self, x):
        # float32 for bf16 inputs; float64 stays float64 (the fp64 reference)
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        y = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return (y * self.weight.to(xf.dtype)).to(x.dtype)


rows = 65536
hidden = 4096
eps = 1e-6


def get_inputs():
    return [torch.randn(rows, hidden, dtype=torch.bfloat16)]


def get_init_inputs():
    return [hidden, eps]
