# original: standalone_vadd.py
# memcheck: none
# the store's index, value and mask each with a leading dimension added (x[None, :] broadcasts as x does): the original's access, proven
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs[None, :], (x + y)[None, :], mask=mask[None, :])
