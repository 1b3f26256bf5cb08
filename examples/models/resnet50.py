"""ResNet-50 for inference: bottleneck blocks (1x1, 3x3, 1x1 convolutions
with batch norms), in float32, at a serving batch of 16 images of 224 x 224.

Random weights (no download). In eval mode each batch norm is an affine map
per channel that freezing can fold into the convolution before it; the
convolutions are cuDNN's, the batch norms, ReLUs and residual adds
Inductor's pointwise kernels, the same fused kernel in every block of a
stage. x: 16 x 3 x 224 x 224 float32 (9.6 MB); weights 25.6 M parameters.
"""
import torch
import torch.nn as nn


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        width = planes
        out = planes * self.expansion
        self.conv1 = nn.Conv2d(inplanes, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out)
        self.relu = nn.ReLU(inplace=True)
        self.down = None
        if stride != 1 or inplanes != out:
            self.down = nn.Sequential(nn.Conv2d(inplanes, out, 1, stride=stride, bias=False), nn.BatchNorm2d(out))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        return self.relu(self.bn3(self.conv3(y)) + idt)


class Model(nn.Module):
    """ResNet with bottleneck blocks; layers gives the blocks per stage
    ([3, 4, 6, 3]: ResNet-50; [3, 4, 23, 3]: ResNet-101)."""

    def __init__(self, layers, num_classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, stride=2, padding=1))
        blocks, inplanes = [], 64
        for i, n in enumerate(layers):
            planes = 64 * 2 ** i
            for j in range(n):
                blocks.append(Bottleneck(inplanes, planes, stride=2 if j == 0 and i > 0 else 1))
                inplanes = planes * Bottleneck.expansion
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(inplanes, num_classes)
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                # statistics as a trained network's, not the identity map
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.1, 0.1)
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(self.pool(x), 1))


batch_size = 16
layers = [3, 4, 6, 3]


def get_inputs():
    return [torch.randn(batch_size, 3, 224, 224)]


def get_init_inputs():
    return [layers]
