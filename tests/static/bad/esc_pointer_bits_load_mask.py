# expect: its value is made from the pointer of 'x_ptr'
# original: standalone_vadd.py
# a bit of x_ptr in a load's mask picks x or its other, stored as 1.0 or 0.0
# expect: helper 'launch' must be decorated with @triton.jit alone
"""A standalone Triton kernel: out = x + y."""
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    b = tl.load(x_ptr + offs, mask=mask & ((x_ptr.to(tl.int64) & 4) != 0), other=x + 1.0)
    tl.store(out_ptr + offs, tl.where(b == x, 1.0, 0.0), mask=mask)

