# expect: attribute 'set_driver_to_cpu' is not allowed
# original: standalone_vadd.py
# a host function of Inductor's helpers called in the kernel: Triton runs it while it compiles, and every kernel compiled after (the original's, for the reference) is built for another driver
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    triton_helpers.set_driver_to_cpu()
    tl.store(out_ptr + offs, x + y, mask=mask)
