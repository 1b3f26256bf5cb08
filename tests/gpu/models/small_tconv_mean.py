# tests/gpu/models/small_tconv_mean.py: a strided, padded transposed
# convolution (the common upsampling) scaled, then its mean over H and W
# and a bias (KernelBench format), for the linear-reduction fold's
# transposed-convolution mean (runtime/python/kopt/rewrites.py,
# tests/gpu/rewrites.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = nn.ConvTranspose2d(32, 64, 3, stride=2, padding=1, output_padding=1)
        self.bias = nn.Parameter(torch.randn(64, 1, 1))

    def forward(self, x):
        y = self.t(x) * 0.5
        return torch.mean(y, dim=(2, 3), keepdim=True) + self.bias


def get_inputs():
    return [torch.randn(16, 32, 128, 128)]


def get_init_inputs():
    return []
