# expect: tl.static_range unrolls more than 1024 bodies
# original: standalone_unrolled.py
# tl.static_range(0, arg2=2**30): Triton binds arg2 as the end and unrolls 2**30 bodies;
# the limit counted the positional arguments alone, range(0), no iteration
"""A standalone autotuned Triton kernel: each program sums CHUNKS blocks of a
row, the loop over them unrolled (tl.static_range over a constexpr)."""
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({'BLOCK': 256, 'CHUNKS': 4}, num_warps=4),
             triton.Config({'BLOCK': 512, 'CHUNKS': 2}, num_warps=8)],
    key=['n_cols'],
)
@triton.jit
def chunks_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr, CHUNKS: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for c in tl.static_range(0, arg2=1 << 30):
        cols = c * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, 0))
