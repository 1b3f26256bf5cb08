# expect: 'out_ptr', which the original only writes
# original: standalone_offset.py
# a load of the output through the offset argument the original's store adds (before, an access of names the original's store uses was left to the memcheck)
import triton
import triton.language as tl


@triton.jit
def shifted_kernel(x_ptr, out_ptr, n, offset, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    prev = tl.load(out_ptr + offset + offs, mask=mask)
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offset + offs, x + 1.0 + 0.0 * prev, mask=mask)
