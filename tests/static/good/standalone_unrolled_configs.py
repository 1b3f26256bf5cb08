# original: standalone_unrolled.py
# memcheck: none
# other launch configs, each CHUNKS at most 1024: the unrolling stays bounded
"""A standalone autotuned Triton kernel: each program sums CHUNKS blocks of a
row, the loop over them unrolled (tl.static_range over a constexpr)."""
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({'BLOCK': 128, 'CHUNKS': 8}, num_warps=4),
             triton.Config({'BLOCK': 1024, 'CHUNKS': 1}, num_warps=8)],
    key=['n_cols'],
)
@triton.jit
def chunks_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr, CHUNKS: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for c in tl.static_range(CHUNKS):
        cols = c * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, 0))
