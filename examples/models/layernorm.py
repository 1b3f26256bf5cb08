"""LayerNorm over the last dimension, with an affine weight and bias.

A mean/variance reduction per row fused with the normalisation and the
affine transform (Inductor: one persistent or looped reduction kernel).
x: 32768 x 4096 float32 (512 MiB); weight and bias: 4096.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        # not the identity affine, so that a kernel dropping it is caught
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.1 * torch.randn(hidden))
            self.norm.bias.copy_(0.1 * torch.randn(hidden))

    def forward(self, x):
        return self.norm(x)


rows = 32768
hidden = 4096


def get_inputs():
    return [torch.randn(rows, hidden)]


def get_init_inputs():
    return [hidden]
