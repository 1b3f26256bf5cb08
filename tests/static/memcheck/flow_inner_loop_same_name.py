# memcheck: its index or mask differs from the original's
# original: standalone_rowsum.py
# an inner loop rebinds start over a longer range; the mask tests the outer one
"""A standalone autotuned Triton kernel: the sum of each row."""
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({'BLOCK': 1024}, num_warps=4), triton.Config({'BLOCK': 2048}, num_warps=8)],
    key=['n_cols'],
)
@triton.jit
def rowsum_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < n_cols
        for start in range(0, n_cols + 4096, BLOCK):
            acc += tl.load(x_ptr + row * stride + start + tl.arange(0, BLOCK), mask=m, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, 0))
