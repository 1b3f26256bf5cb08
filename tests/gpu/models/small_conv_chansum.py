# tests/gpu/models/small_conv_chansum.py: a 3-D transposed convolution's
# mean over its channels (KernelBench format), for the linear-reduction
# fold's channel sum (runtime/python/kopt/rewrites.py,
# tests/gpu/rewrites.sh): one output channel in place of 64.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = nn.ConvTranspose3d(16, 64, 3, stride=2, padding=1)

    def forward(self, x):
        return torch.tanh(self.t(x).mean(dim=1, keepdim=True))


def get_inputs():
    return [torch.randn(8, 16, 16, 32, 32)]


def get_init_inputs():
    return []
