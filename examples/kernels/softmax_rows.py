"""Row softmax: a standalone Triton kernel, one program per row.

Format: see kernels/vadd.py. The whole row sits in registers (BLOCK is the
next power of two of the row length), so num_warps and the number of
pipeline stages are what a tuner varies.
x: 16384 x 4096 float32 (256 MiB), output the same.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)


NUM_WARPS = 8


def launch(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    block = triton.next_power_of_2(cols)
    softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=block,
                            num_warps=NUM_WARPS)
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


rows = 16384
cols = 4096


def get_inputs():
    return [torch.randn(rows, cols)]
