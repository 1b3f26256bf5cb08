# expect: may read 'out_ptr', which the original only writes
# original: standalone_vadd.py
# pointers unpacked from what a call returns (not a tuple written out)
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a, b = tl.where(mask, x_ptr, out_ptr), y_ptr
    x = tl.load(a + offs, mask=mask)
    y = tl.load(b + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
