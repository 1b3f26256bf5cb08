# expect: rebinding 'max' is not allowed: an assignment in 'vadd_kernel'
# original: standalone_vadd.py
# a local that shadows the builtin max
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    max = tl.minimum
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, max(x, y), mask=mask)
