"""A matmul with a bias and ReLU epilogue as a Helion kernel.

Format: see softmax.py. Two tiled dimensions and a loop over K: the two
block sizes of the output tile, the K block, the warps, the stages, the
loop order, the program-id order (pid_type) and the indexing (pointer,
block_ptr, tensor_descriptor) are the config's keys.

Here: float16, x 4096 x 4096 times w 4096 x 4096, accumulated in float32,
plus a bias of 4096, then ReLU (the gates' half-precision tolerances).
"""
import torch

import helion
import helion.language as hl


@helion.kernel()
def matmul_bias_relu(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    k2, n = w.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], w[tile_k, tile_n])
        acc = acc + bias[tile_n].to(torch.float32)
        out[tile_m, tile_n] = torch.relu(acc).to(x.dtype)
    return out


def reference(x, w, bias):
    return torch.relu(x @ w + bias)


m = n = k = 4096


def get_inputs():
    return [torch.randn(m, k, dtype=torch.float16) * 0.1, torch.randn(k, n, dtype=torch.float16) * 0.1,
            torch.randn(n, dtype=torch.float16)]
