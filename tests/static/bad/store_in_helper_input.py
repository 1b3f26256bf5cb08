# expect: a store in a helper writes whatever buffer its caller passes
# original: standalone_vadd.py
# a helper that stores, handed an input's pointer: the memcheck would pass it (the input is allocated)
import triton
import triton.language as tl


@triton.jit
def _keep(p, v, m):
    tl.store(p, v, mask=m)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
    _keep(x_ptr + offs, x * 0.0, mask)
