# expect: used as a value (tl.math)
# original: standalone_vadd.py
# a module held in a name: its attributes are then read as a tensor's, and tl.math's reduce is functools.reduce, host-side Python Triton would call while it compiles
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    m = tl.math
    tl.store(out_ptr + offs, x + y + m.reduce, mask=mask)
