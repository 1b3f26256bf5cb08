# expect: cannot tell which buffer it writes
# original: standalone_vadd.py
# a store through a pointer chosen between the output and an integer: the integer side names no buffer
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(tl.where(mask, out_ptr + offs, 0), x + y, mask=mask)
