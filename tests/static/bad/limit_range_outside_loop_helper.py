# expect: 'range()' outside a for loop's iterable is not allowed
# original: standalone_vadd.py
# the range summed by math.fsum in a helper the kernel calls: Python adds 2 ** 40 numbers while Triton compiles
import triton
import triton.language as tl
from math import fsum


@triton.jit
def parity(n):
    return fsum(range(n)) % 2


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + parity(1 << 40), mask=mask)
