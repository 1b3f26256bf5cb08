# original: standalone_vadd.py
# an input's index clamped by tl.where on a test made with and/comparisons: the input's pointer alone, its index for the memcheck
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    safe = tl.where(mask and BLOCK > 0, offs, 0)
    x = tl.load(x_ptr + safe, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
