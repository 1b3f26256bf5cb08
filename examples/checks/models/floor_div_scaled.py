"""floor_div's floor division, then a scale and a shift: a compile variant
that is faster and wrong.

Inductor fuses the three ops into one kernel, so its compile reads x and y
once; it also computes floor(x / y) on the rounded quotient, which is one
too large wherever x / y sits just below an integer (see floor_div.py).
With the division kept in ATen (exact, as eager), the compile runs two
kernels and moves the intermediate through memory: slower, and right.
examples/checks/baseline.kopt declares the ATen variant first, so it is the
baseline, and Inductor's all-in-one compile second: koptmake must find it
wrong against eager and never choose it, however fast it is.
x, y: 16M float32.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return torch.div(x, y, rounding_mode="floor") * 0.5 + 1.0


n = 1 << 24


def get_inputs():
    y = torch.full((n,), 0.1)
    x = torch.randint(0, 1000, (n,)).float() * y
    return [x, y]


def get_init_inputs():
    return []
