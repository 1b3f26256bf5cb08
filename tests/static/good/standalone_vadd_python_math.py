# original: standalone_vadd.py
# memcheck: none
# Python's math at compile time with bounded work (a constant, a square root, a gcd of constants) and a loop over a range
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
    scale = math.sqrt(1.0) * (math.gcd(12, 18) // 6)
    for _ in range(0, 1):
        x = x * scale
    tl.store(out_ptr + offs, x + y + 0.0 * math.pi, mask=mask)
