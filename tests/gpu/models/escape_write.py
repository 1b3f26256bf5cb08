"""Bad input for the GPU sandbox test: writes a file outside the worker's
scratch folder when it is loaded ($KOPT_ESCAPE_FILE), as code that got past
the static gate would; in the worker's sandbox that fails with
PermissionError and the file is not written."""
import os

import torch
import torch.nn as nn

with open(os.environ.get("KOPT_ESCAPE_FILE", os.path.expanduser("~/kopt-escaped")), "w") as f:
    f.write("escaped\n")


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return []
