# memcheck: in helper 'fetch': its buffer is a helper's argument
# original: standalone_vadd.py
# a helper with a default argument, given an input's pointer: its load for the memcheck
import triton
import triton.language as tl


@triton.jit
def fetch(p, o, m=None):
    return tl.load(p + o, mask=m)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + 0.0 * fetch(x_ptr, offs), mask=mask)
