# tests/gpu/models/small_attention.py: multi-head self-attention over the
# pixels of a feature map, a residual and a layer norm (KernelBench
# format), for the attention rewrite (runtime/python/kopt/rewrites.py,
# kopt.flash_attention; tests/gpu/rewrites.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(64, 2)
        self.norm = nn.LayerNorm(64)

    def forward(self, x):
        b, c, h, w = x.shape
        s = x.flatten(2).permute(2, 0, 1)  # (pixels, batch, channels)
        a, _ = self.attn(s, s, s)
        return self.norm(a + s).permute(1, 2, 0).reshape(b, c, h, w)


def get_inputs():
    return [torch.randn(4, 64, 48, 64)]


def get_init_inputs():
    return []
