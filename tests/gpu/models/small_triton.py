"""A standalone Triton kernel for GPU tests: y = x * scale + bias, row-wise.

Format: @triton.jit kernels, launch(*inputs) -> outputs, reference(*inputs)
in plain torch, get_inputs().
"""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_bias_kernel(x_ptr, b_ptr, y_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    for start in range(0, n_cols, BLOCK):
        idx = start + cols
        mask = idx < n_cols
        x = tl.load(x_ptr + row * n_cols + idx, mask=mask)
        b = tl.load(b_ptr + idx, mask=mask)
        tl.store(y_ptr + row * n_cols + idx, x * scale + b, mask=mask)


def launch(x, b):
    y = torch.empty_like(x)
    scale_bias_kernel[(x.shape[0],)](x, b, y, x.shape[1], 1.5, BLOCK=1024, num_warps=4)
    return y


def reference(x, b):
    return x * 1.5 + b


def get_inputs():
    return [torch.randn(8192, 8192), torch.randn(8192)]
