# original: standalone_vadd.py
# memcheck: none
# the store made an atomic exchange whose old value is dropped: a write only, proven as the store
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.atomic_xchg(out_ptr + offs, x + y, mask=mask)
