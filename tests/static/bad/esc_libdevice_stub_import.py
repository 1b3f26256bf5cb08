# expect: import of 'triton.language.extra.libdevice.fast_tanhf' is not allowed: a stub of Triton's libdevice that the CUDA backend does not define
# original: standalone_vadd.py
# a stub of Triton's generic libdevice with no CUDA function: host-side Python that Triton's compiler cannot replace
import triton
import triton.language as tl
from triton.language.extra.libdevice import fast_tanhf


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, fast_tanhf(x + y), mask=mask)
