"""Bad input for GPU tests: fails at import with a clear traceback."""
import torch
import torch.nn as nn
from no_such_module import thing  # noqa: F401


class Model(nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    return [torch.randn(4)]


def get_init_inputs():
    return []
