# expect: attribute 'triton_builtin' is not allowed
# original: standalone_vadd.py
# a host function of Inductor's helpers: it marks a function as one of Triton's builtins, which Triton calls with its compiler's own state while it compiles
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
    pick = triton_helpers.triton_builtin(triton_helpers.maximum)
    tl.store(out_ptr + offs, pick(x, y), mask=mask)
