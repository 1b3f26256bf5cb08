"""A 3x3 convolution followed by its bias and a ReLU.

The convolution itself runs in cuDNN (a vendor kernel, left alone); Inductor
emits Triton kernels around it: layout conversions and the fused
bias + ReLU epilogue. Under the strict precision policy TF32 is off, so the
baseline and the float64 reference agree.
x: 32 x 64 x 128 x 128 float32 (128 MiB); output 32 x 128 x 128 x 128
(256 MiB); weight 128 x 64 x 3 x 3.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x):
        return torch.relu(self.conv(x))


batch_size = 32
in_channels = 64
out_channels = 128
size = 128
kernel_size = 3


def get_inputs():
    return [torch.randn(batch_size, in_channels, size, size)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
