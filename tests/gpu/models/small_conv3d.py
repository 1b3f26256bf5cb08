# tests/gpu/models/small_conv3d.py: a forward 3-D convolution (KernelBench
# format), for the conv3d-as-conv2d rewrite (runtime/python/kopt/rewrites.py,
# tests/gpu/rewrites.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(16, 32, 3, padding=1, bias=True)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(4, 16, 32, 64, 64)]


def get_init_inputs():
    return []
