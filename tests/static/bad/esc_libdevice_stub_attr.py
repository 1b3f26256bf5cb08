# expect: attribute 'fast_tanhf' is not allowed (libdevice.fast_tanhf): a stub of Triton's libdevice that the CUDA backend does not define
# original: standalone_vadd.py
# the same stub reached as an attribute of Inductor's helpers' libdevice
import triton
import triton.language as tl

from torch._inductor.runtime.triton_helpers import libdevice


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, libdevice.fast_tanhf(x + y), mask=mask)
