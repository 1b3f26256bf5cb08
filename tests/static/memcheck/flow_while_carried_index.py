# memcheck: its index or mask differs from the original's
# original: standalone_vadd.py
# an index a while loop moves past the end
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = offs
    k = 0
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    while k < 2:
        tl.store(out_ptr + idx, x + y, mask=mask)
        idx = idx + BLOCK
        k += 1
