"""A standalone Triton kernel that writes at an offset it is given: out[offset + i] = x[i] + 1."""
import triton
import triton.language as tl


@triton.jit
def shifted_kernel(x_ptr, out_ptr, n, offset, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offset + offs, x + 1.0, mask=mask)
