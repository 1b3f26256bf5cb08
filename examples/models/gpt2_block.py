"""A GPT-2 decoder block (the 124M model's: 768 wide, 12 heads) in
bfloat16, at a serving batch: 16 sequences of 1024 tokens.

Pre-norm: LayerNorm, causal self-attention through PyTorch's scaled dot
product attention (flash attention's kernel in bf16), an output
projection, a residual add, LayerNorm, a 4x MLP with GELU (tanh), a
residual add. The GEMMs are cuBLAS's in bf16; Inductor fuses the norms,
the GELU, the biases and the residual adds around them. Random weights
(no download). x: 16 x 1024 x 768 bfloat16 (24 MiB); weights 7.1 M
parameters.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.out = nn.Linear(4 * dim, dim)
        self.to(torch.bfloat16)

    def attention(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        shape = (b, t, self.heads, d // self.heads)
        q, k, v = (y.view(shape).transpose(1, 2) for y in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


batch_size = 16
seq_len = 1024
dim = 768
heads = 12


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim, dtype=torch.bfloat16)]


def get_init_inputs():
    return [dim, heads]
