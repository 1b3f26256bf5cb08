# expect: its value is made from what the gate cannot follow
# original: standalone_vadd.py
# the same through a helper with *vals, whose parameter the gate cannot follow
import triton
import triton.language as tl


@triton.jit
def first(*vals):
    return vals[0]


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    d = first((x_ptr.to(tl.int64) - out_ptr.to(tl.int64)) // 4)
    tl.store(out_ptr + offs, x + y + d.to(tl.float32), mask=mask)
