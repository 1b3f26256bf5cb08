# expect: a store in a helper writes whatever buffer its caller passes
# original: standalone_vadd.py
# a store made in a helper
import triton
import triton.language as tl


@triton.jit
def _st(p, v, m):
    tl.store(p, v, mask=m)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    _st(out_ptr + offs, x + y, mask)
