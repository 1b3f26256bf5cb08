"""2-D average pooling with a large window (KernelBench level 1 #45, scaled).

A case where Inductor's default launch configuration loses to eager: at
KernelBench's size (16 x 64 x 2048 x 2048, window 11) the compiled model ran
10.65 ms against eager's 4.05 ms on the H200, and 4.00 ms once max-autotune
searched its configs. Here the batch is cut to keep the input at 1 GiB; the
window, and so the shape of the problem, is the same.
x: 4 x 16 x 2048 x 2048 float32 (1 GiB); output 4 x 16 x 186 x 186.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.pool(x)


batch_size = 4
channels = 16
height = 2048
width = 2048
kernel_size = 11


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [kernel_size]
