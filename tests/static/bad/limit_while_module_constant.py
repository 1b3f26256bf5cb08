# expect: a while loop whose condition nothing in its body changes never ends
# original: standalone_vadd.py
# while on a module constant
import triton
import triton.language as tl
FOREVER = 1


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
    while FOREVER:
        x = x + 1
