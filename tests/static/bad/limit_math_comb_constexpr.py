# expect: 'math.comb' computes at compile time with no bound
# original: standalone_vadd.py
# math.comb over the block size, imported by name: its work grows with the constexpr
import triton
import triton.language as tl
from math import comb


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    k = comb(BLOCK * 999999, BLOCK * 499999) % 2
    tl.store(out_ptr + offs, x + y + k, mask=mask)
