# expect: writes 'y_ptr', which the original only reads
# original: standalone_vadd.py
# a store into an input buffer, same index and mask: a weight or an input changed for the calls after
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
    tl.store(y_ptr + offs, y * 0.5, mask=mask)
