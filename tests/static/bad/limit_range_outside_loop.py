# expect: 'range()' outside a for loop's iterable is not allowed
# original: standalone_vadd.py
# a range iterated by Python's math.prod while Triton compiles: 10 ** 12 multiplications before the kernel exists
import math

import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    k = math.prod(range(1, 10 ** 12)) % 2
    tl.store(out_ptr + offs, x + y + k, mask=mask)
