# memcheck: it writes through the names the original's store does
# original: standalone_offset.py
# the original's store through out_ptr + offset kept, its load given a cache hint: the same names, for the memcheck
"""A standalone Triton kernel that writes at an offset it is given: out[offset + i] = x[i] + 1."""
import triton
import triton.language as tl


@triton.jit
def shifted_kernel(x_ptr, out_ptr, n, offset, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, eviction_policy='evict_first')
    tl.store(out_ptr + offset + offs, x + 1.0, mask=mask)
