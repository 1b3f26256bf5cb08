# expect: cannot tell which buffer it writes
# original: standalone_vadd.py
# the store's pointer the output on one branch and a value the gate cannot follow on the other
import triton
import triton.language as tl


@triton.jit
def _same(p):
    return p


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    q = out_ptr
    if pid > 1000000:
        q = _same(x_ptr)
    tl.store(q + offs, x + y, mask=mask)
