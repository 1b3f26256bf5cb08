"""Two stages of a ConvNeXt (the tiny model's first two: 96 and 192
channels), in float32, at a batch of 32 images' 56 x 56 feature maps.

Each block: a 7 x 7 depthwise convolution, a LayerNorm over the channels
(channels-last, through a permute), a 4x MLP with GELU, a per-channel
layer scale and a residual add; between the stages a LayerNorm and a
2 x 2 strided convolution. The depthwise convolutions are what koptmake's
own rewrite takes (kopt.depthwise_as_pointwise); the MLPs are cuBLAS's.
Random weights (no download). x: 32 x 96 x 56 x 56 float32 (38.5 MB).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.out = nn.Linear(4 * dim, dim)
        self.scale = nn.Parameter(torch.full((dim,), 0.1))

    def forward(self, x):
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.out(F.gelu(self.fc(self.norm(y)))) * self.scale
        return x + y.permute(0, 3, 1, 2)


class Model(nn.Module):
    def __init__(self, dims, depths):
        super().__init__()
        layers = []
        for i, (dim, depth) in enumerate(zip(dims, depths)):
            if i:
                layers.append(Downsample(dims[i - 1], dim))
            layers.extend(Block(dim) for _ in range(depth))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


class Downsample(nn.Module):
    def __init__(self, dim, out):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.conv = nn.Conv2d(dim, out, 2, stride=2)

    def forward(self, x):
        x = self.norm(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return self.conv(x)


batch_size = 32
dims = [96, 192]
depths = [3, 3]


def get_inputs():
    return [torch.randn(batch_size, dims[0], 56, 56)]


def get_init_inputs():
    return [dims, depths]
