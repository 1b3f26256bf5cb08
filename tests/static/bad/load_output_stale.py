# expect: reads 'out_ptr', which the original only writes
# original: standalone_vadd.py
# the output read before it is written: a previous call's result reused where it looks current
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    prev = tl.load(out_ptr + offs, mask=mask, other=0.0)
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(prev == x + y, prev, x + y), mask=mask)
