# tests/gpu/models/small_block_shapes.py: a layer norm and a linear layer
# in bfloat16 over batch_size x 256 rows of 128 (KernelBench format), with
# a module-level batch size that a spec's shapes set: what a decoder
# block's deployment compiles (parameters, a GEMM max-autotune tunes, a
# norm), small enough to capture in seconds, for tests/gpu/deploy_keys.py.
import torch
import torch.nn as nn

batch_size = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(128)
        self.fc = nn.Linear(128, 128)
        self.to(torch.bfloat16)

    def forward(self, x):
        return torch.relu(self.fc(self.norm(x)))


def get_inputs():
    return [torch.randn(batch_size, 256, 128, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
