"""A matrix multiplication with a bias and GELU epilogue.

cuBLAS does the GEMM; the bias add and the GELU form a pointwise Triton
epilogue (or, with max-autotune, a Triton GEMM template with the epilogue
fused). Strict precision: no TF32.
x: 4096 x 8192 float32 (128 MiB); weight 8192 x 8192 (256 MiB); output
4096 x 8192 (128 MiB).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return F.gelu(self.linear(x))


tokens = 4096
in_features = 8192
out_features = 8192


def get_inputs():
    return [torch.randn(tokens, in_features)]


def get_init_inputs():
    return [in_features, out_features]
