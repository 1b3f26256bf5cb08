# tests/gpu/models/small_avgpool3d.py: a 3-D average pooling (KernelBench
# format), for the pool-as-pointwise rewrite (runtime/python/kopt/rewrites.py,
# tests/gpu/rewrites.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool3d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(8, 32, 64, 64, 128)]


def get_init_inputs():
    return []
