# expect: recursion is not allowed: 'ping' -> 'pong' -> 'ping'
# original: standalone_vadd.py
# two helpers that call each other
import triton
import triton.language as tl


@triton.jit
def ping(v):
    pong(v)


@triton.jit
def pong(v):
    ping(v)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
    ping(x)
