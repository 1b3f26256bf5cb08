# expect: may read 'out_ptr', which the original only writes
# original: standalone_vadd.py
# the output read through a pointer chosen between it and an input: a previous call's result
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.load(tl.where(x > 0, out_ptr, y_ptr) + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(z == x + y, z, x + y), mask=mask)
