# memcheck: its index or mask differs from the original's
# original: standalone_vadd.py
# a module constant of 2**20 added and taken away: a large constant, from the module's names too, is not folded
import triton
import triton.language as tl

OFF = 1048576


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + (offs + OFF - OFF), x + y, mask=mask)
