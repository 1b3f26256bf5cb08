"""Layer norm over the last dimension as a Helion kernel, with a launch().

Format: see softmax.py. launch() is there to show the form a file with
its own calling code takes (it is also what a file with several kernels
needs): it calls the kernel by its global name, so a candidate config
swapped in for that global is what runs.

Here: x 8192 x 8192 float32 (256 MiB), weight and bias of 8192; mean and
variance in float32 over the whole row, one tile of rows per program.
"""
import torch

import helion
import helion.language as hl


@helion.kernel()
def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        acc = x[tile_m, :].to(torch.float32)
        mean = torch.mean(acc, dim=-1, keepdim=True)
        centered = acc - mean
        var = torch.mean(centered * centered, dim=-1, keepdim=True)
        normalized = centered * torch.rsqrt(var + 1e-5)
        out[tile_m, :] = (normalized * weight[:].to(torch.float32) + bias[:].to(torch.float32)).to(x.dtype)
    return out


def launch(x, weight, bias):
    return layer_norm(x, weight, bias)


def reference(x, weight, bias):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps=1e-5)


rows = 8192
cols = 8192


def get_inputs():
    return [torch.randn(rows, cols), torch.rand(cols) + 0.5, torch.randn(cols)]
