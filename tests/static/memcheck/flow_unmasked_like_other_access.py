# memcheck: its index or mask differs from the original's
# original: standalone_bias.py
# the original loads x_ptr unmasked once (x_ptr[0]); that does not make x_ptr + offs safe unmasked
import triton
import triton.language as tl


@triton.jit
def bias_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    first = tl.load(x_ptr)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x + first, mask=mask)
