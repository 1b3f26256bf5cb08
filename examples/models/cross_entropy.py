"""Cross-entropy loss over a large vocabulary.

log_softmax over each row (max, log-sum-exp), a gather at the target index
and a mean over the rows: two chained reductions with an integer input.
logits: 16384 x 8192 float32 (512 MiB); targets: 16384 int64; output a
scalar.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, targets):
        return F.cross_entropy(logits, targets)


rows = 16384
vocab = 8192


def get_inputs():
    return [torch.randn(rows, vocab), torch.randint(0, vocab, (rows,))]


def get_init_inputs():
    return []
