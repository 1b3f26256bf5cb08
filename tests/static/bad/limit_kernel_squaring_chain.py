# expect: a compile-time integer that may grow past 4096 bits
# original: standalone_vadd.py
# a constexpr squared by a chain of assignments
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    a = BLOCK * BLOCK
    b = a * a
    c = b * b
    d = c * c
    e = d * d
    f = e * e
    g = f * f
    h = g * g
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
