"""Floor division of floats whose quotients land on integers.

torch.div(x, y, rounding_mode="floor") in eager PyTorch is exact: ATen
takes fmod(x, y) first and corrects the quotient (c10's div_floor_floating).
Inductor computes floor(x / y) on the rounded quotient, so where x / y is
just below an integer and rounds up to it, the compiled result is larger by
one. Here x is an integer multiple of y = 0.1 (in float32), so about half
the quotients sit just below an integer. On the H200 (torch 2.11): compiled
against eager, max abs error 1.0; eager against the float64 reference, 0.0.
The compiled baseline disagrees with eager, and eager is right: koptmake
must report it and claim no speedup.
x, y: 16M float32.
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return torch.div(x, y, rounding_mode="floor")


n = 1 << 24


def get_inputs():
    y = torch.full((n,), 0.1)
    x = torch.randint(0, 1000, (n,)).float() * y
    return [x, y]


def get_init_inputs():
    return []
