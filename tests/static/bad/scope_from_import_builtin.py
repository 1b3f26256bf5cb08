# expect: rebinding 'min' is not allowed: the module-level import
# original: standalone_vadd.py
# a from-import that shadows the builtin min
import triton
import triton.language as tl
from math import floor as min


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, min(x) + y, mask=mask)
