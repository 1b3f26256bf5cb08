# expect: must start its line with '@'
# original: standalone_vadd.py
# a decorator whose expression starts a line below its '@': Python 3.11 and 3.13 read the source from different lines
import triton
import triton.language as tl


@(
    triton.jit
)
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
