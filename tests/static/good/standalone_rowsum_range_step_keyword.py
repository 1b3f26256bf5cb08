# original: standalone_rowsum.py
# memcheck: none
# tl.range's step by keyword: the original's loop, proven as the original's
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
    for start in tl.range(0, n_cols, step=BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, 0))
