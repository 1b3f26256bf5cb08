# tests/gpu/models/small_tconv_strided.py: a grouped 3-D transposed
# convolution of stride 2 (KernelBench format), for the conv-transpose-as-conv
# rewrite's phases (runtime/python/kopt/rewrites.py, tests/gpu/rewrites.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.ConvTranspose3d(32, 32, 3, stride=2, padding=1, output_padding=1, groups=4, bias=True)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(4, 32, 16, 32, 64)]


def get_init_inputs():
    return []
