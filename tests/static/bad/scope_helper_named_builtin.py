# expect: rebinding 'min' is not allowed: the module-level definition
# original: standalone_vadd.py
# a helper named min: the gate treats min() as the harmless builtin
import triton
import triton.language as tl


@triton.jit
def min(a, b):
    return a


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, min(x, y), mask=mask)
