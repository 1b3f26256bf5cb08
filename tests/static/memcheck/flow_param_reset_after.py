# memcheck: store at line 15
# original: standalone_vadd.py
# a constexpr parameter in the index, set to 0 after the store: the gate used to prove it the original's index
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs + BLOCK, x + y, mask=mask)
    BLOCK = 0
