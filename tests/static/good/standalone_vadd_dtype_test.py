# original: standalone_vadd.py
# memcheck: none
# a branch on a pointer's element type, which Triton knows as it compiles: no bits of the pointer
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    v = x + y
    if x_ptr.dtype.element_ty == tl.float16:
        v = v * 1.0
    tl.store(out_ptr + offs, v, mask=mask)
