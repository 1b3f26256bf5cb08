# tests/gpu/models/var_norm.py: a norm whose variance is written out
# (KernelBench format): Inductor's looped reduction sums each row, then its
# squared deviations, then normalises it, the row read three times; the
# one-pass statistics transform (onepass, runtime/python/kopt/transforms.py)
# folds the second loop into the first (tests/gpu/transforms.py).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        m = x.mean(dim=1, keepdim=True)
        v = ((x - m) ** 2).mean(dim=1, keepdim=True)
        return (x - m) / torch.sqrt(v + 1e-5)


def get_inputs():
    return [torch.rand(16384, 8192)]


def get_init_inputs():
    return []
