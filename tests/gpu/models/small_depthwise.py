# tests/gpu/models/small_depthwise.py: a depthwise 2-D convolution
# (KernelBench format), for the depthwise-as-pointwise rewrite
# (runtime/python/kopt/rewrites.py, tests/gpu/rewrites.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels=64, k=3):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, k, stride=1, padding=1, groups=channels, bias=True)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(16, 64, 256, 256)]


def get_init_inputs():
    return []
