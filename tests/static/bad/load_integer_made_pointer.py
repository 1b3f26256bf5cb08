# expect: its pointer is made from no buffer
# original: standalone_vadd.py
# a load through an address made from a size alone: no buffer of the kernel's, any allocated memory
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.load((n * 4096).to(tl.pointer_type(tl.float32)) + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + 0.0 * z, mask=mask)
