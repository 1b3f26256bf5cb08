# expect: loop_unroll_factor must be a constant of at most 64
# original: standalone_rowsum.py
# tl.range's loop_unroll_factor given by position (its fifth parameter): 2**20 copies of the
# body; the limit read it as a keyword alone
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
    for start in tl.range(0, n_cols, BLOCK, 1, 1 << 20):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, 0))
