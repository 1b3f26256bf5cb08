# expect: reads 'out_ptr', which the original only writes
# original: standalone_vadd.py
# an atomic add of zero to the output: it returns what the output held, a previous call's result
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    prev = tl.atomic_add(out_ptr + offs, 0.0, mask=mask)
    tl.store(out_ptr + offs, tl.where(prev == x + y, prev, x + y), mask=mask)
