# tests/gpu/models/small_last_state.py: states of a chunked sequence, each
# chunk decayed into every later state by an einsum, of which the model
# returns the last (KernelBench format), for the sliced-product rewrite
# (runtime/python/kopt/rewrites.py, kopt.sliced_product;
# tests/gpu/rewrites.sh): the product's row for the last state alone, a
# 1024th of its FLOPs.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.decay = nn.Parameter(torch.rand(1024, 1024) * 1e-3)

    def forward(self, x):  # x: (batch, chunks, features)
        weights = torch.exp(-self.decay.cumsum(1))  # (states, chunks)
        states = torch.einsum("zc,bcf->bzf", weights, x)
        return torch.tanh(states[:, -1])


def get_inputs():
    return [torch.randn(16, 1024, 1024)]


def get_init_inputs():
    return []
