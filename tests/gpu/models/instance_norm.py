# tests/gpu/models/instance_norm.py: an instance norm (KernelBench format;
# level 1's 34 at a quarter of its batch): rows of 262144, each read for its
# statistics and again to normalise (tests/gpu/transforms.py).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(64)

    def forward(self, x):
        return self.inorm(x)


def get_inputs():
    return [torch.rand(28, 64, 512, 512)]


def get_init_inputs():
    return []
