# original: standalone_rowsum.py
# tl.reduce with a combine helper of the candidate's own that only adds (it loads nothing), through a helper that takes it as a value
import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def fold(v, f):
    return tl.reduce(v, 0, f)


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
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, fold(acc, _add))
