# expect: rebinding 'tl' is not allowed: a parameter in 'put'
# original: standalone_vadd.py
# *args named like the import
import triton
import triton.language as tl


@triton.jit
def put(p, v, *tl):
    tl.store(p, v)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    put(out_ptr + offs, x + y)
