# expect: used as a value
# original: standalone_vadd.py
# a module passed to a helper as a value: its attributes are read as a tensor's (VALUE_ATTRS), not as the module's path
import triton
import triton.language as tl
import math


@triton.jit
def h(m, x):
    return x + m.reduce


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, h(tl.math, x) + h(math, y) + h(triton, y) + h(tl, y), mask=mask)
