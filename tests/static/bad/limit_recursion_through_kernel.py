# expect: recursion is not allowed
# original: standalone_vadd.py
# a helper that calls the kernel back
import triton
import triton.language as tl


@triton.jit
def back(a, b, c, m):
    vadd_kernel(a, b, c, m, 128)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
    back(x_ptr, y_ptr, out_ptr, n)
