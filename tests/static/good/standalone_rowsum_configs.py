# original: standalone_rowsum.py
# memcheck: none
# more autotune configs, tl.range with stages
"""A standalone autotuned Triton kernel: the sum of each row."""
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({'BLOCK': b}, num_warps=w, num_stages=s) for b in (1024, 2048, 4096) for w in (4, 8) for s in (1, 2)],
    key=['n_cols'],
)
@triton.jit
def rowsum_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in tl.range(0, n_cols, BLOCK, num_stages=2):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, 0))
