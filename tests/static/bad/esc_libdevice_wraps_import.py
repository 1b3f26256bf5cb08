# expect: import of 'triton.language.extra.libdevice.wraps' is not allowed
# original: standalone_vadd.py
# the same functools.wraps imported by name from a libdevice module, then used on Triton's own math module: tl.math's functions replaced for every kernel the process compiles later, the original's reference among them
import triton
import triton.language as tl
from triton.language.extra.libdevice import wraps


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    wraps(tl.extra.libdevice)(tl.math)
    tl.store(out_ptr + offs, x + y, mask=mask)
