# expect: its mask is made from the pointer of
# original: standalone_vadd.py
# a mask that copies the bits of a pointer into which elements are written
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    d = x_ptr.to(tl.int64)
    tl.store(out_ptr + offs, x + y, mask=mask & (((d >> (offs % 64)) & 1) == 1))
