# expect: rebinding 'SHIFT' is not allowed: an assignment in 'vadd_kernel'
# original: standalone_vadd.py
# a local that shadows a module constant: Triton reads the constant before the local is assigned
import triton
import triton.language as tl
SHIFT = 0


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs + SHIFT, x + y, mask=mask)
    SHIFT = 4096
