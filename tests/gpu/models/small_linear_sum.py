# tests/gpu/models/small_linear_sum.py: a linear layer whose output is
# divided, summed over its features and scaled (KernelBench format), for
# the linear-reduction fold (runtime/python/kopt/rewrites.py,
# tests/gpu/rewrites.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4096, 8192)

    def forward(self, x):
        return torch.sum(self.fc(x) / 2, dim=1, keepdim=True) * 1.5


def get_inputs():
    return [torch.randn(1024, 4096)]


def get_init_inputs():
    return []
