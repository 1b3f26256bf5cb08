# expect: 'math.factorial' computes at compile time with no bound
# original: standalone_vadd.py
# Python's math.factorial of a large constant, which Triton computes while it compiles the kernel: a compile that never ends
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
    k = math.factorial(999999999) % 2
    tl.store(out_ptr + offs, x + y + k, mask=mask)
