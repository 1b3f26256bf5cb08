"""Bad input for the GPU sandbox test: reads ~/.netrc when it is loaded
($KOPT_SECRET_FILE stands for it), as code that got past the static gate
would, to leak the remote cache's password through a gate's reason; in the
worker's sandbox the home folder is hidden, and the read fails with
PermissionError."""
import os

import torch
import torch.nn as nn

with open(os.environ.get("KOPT_SECRET_FILE", os.path.expanduser("~/.netrc"))) as f:
    raise RuntimeError(f"read it: {f.read()}")


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return []
