# expect: is 3 elements past the original's index into 'out_ptr'
# original: standalone_vadd.py
# a store shifted by a module constant: its value counts, as a literal's does
import triton
import triton.language as tl

SHIFT = 3


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs + SHIFT, x + y, mask=mask)
