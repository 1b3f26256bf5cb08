# expect: calls 'f', a function passed as a value
# original: standalone_vadd.py
# a helper that calls the function it is given, with itself
import triton
import triton.language as tl


@triton.jit
def apply(f: tl.constexpr):
    f(f)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
    apply(apply)
