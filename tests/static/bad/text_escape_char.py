# expect: control character U+001B
# original: standalone_vadd.py
# an ANSI escape in a comment that rewrites the terminal line a reviewer reads
import triton
import triton.language as tl
# [2K[1Amask kept


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
