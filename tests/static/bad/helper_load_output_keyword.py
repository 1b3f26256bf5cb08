# expect: reads 'out_ptr', which the original only writes
# original: standalone_vadd.py
# the same helper given the output's pointer by keyword, through a second helper
import triton
import triton.language as tl


@triton.jit
def fetch(p, o, m):
    return tl.load(p + o, mask=m)


@triton.jit
def outer(o, m, src):
    return fetch(src, o, m) * 2.0


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + 0.0 * outer(offs, mask, src=out_ptr), mask=mask)
