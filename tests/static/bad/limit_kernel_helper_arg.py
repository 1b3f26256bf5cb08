# expect: a helper is passed at most a 64-bit integer at compile time
# original: standalone_vadd.py
# a wide compile-time value passed to a helper that squares it
import triton
import triton.language as tl


@triton.jit
def sq(v):
    return v * v


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    w = BLOCK * BLOCK * BLOCK
    z = sq(w)
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
