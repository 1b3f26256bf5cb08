# tests/gpu/models/small_tconv.py: a 3-D transposed convolution of stride 1
# (KernelBench format), for the conv-transpose-as-conv rewrite
# (runtime/python/kopt/rewrites.py, tests/gpu/tconv.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin=16, cout=32, k=(3, 5, 3)):
        super().__init__()
        self.conv = nn.ConvTranspose3d(cin, cout, k, stride=1, padding=(1, 1, 0), bias=True)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(4, 16, 32, 32, 32)]


def get_init_inputs():
    return []
