# expect: may read 'out_ptr', which the original only writes
# original: standalone_vadd.py
# a pointer taken from a tuple of pointers by an index
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    ptrs = (x_ptr, out_ptr)
    x = tl.load(ptrs[BLOCK // BLOCK] + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
