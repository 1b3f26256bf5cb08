# expect: rebinding 'tl' is not allowed: a parameter in 'put'
# original: standalone_vadd.py
# a helper's parameter named tl: the gate read tl.store as triton.language's, the call passes its own
import triton
import triton.language as tl


@triton.jit
def put(tl, p, v):
    tl.store(p, v)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    put(tl, out_ptr + offs, x + y)
