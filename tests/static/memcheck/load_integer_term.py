# memcheck: load at line 13 (tl.load(x_ptr + (n - n) + offs, mask=mask)): cannot tell which buffer it reads
# original: standalone_vadd.py
# a load through an input and an integer argument as a term: a buffer the original reads and one name that is none, for the memcheck
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + (n - n) + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
