"""Bad input for the GPU sandbox test: opens a network socket when it is
loaded, as code that got past the static gate would; in the worker's
sandbox that fails with PermissionError and the step fails with it."""
import socket

import torch
import torch.nn as nn

socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(1024)]


def get_init_inputs():
    return []
