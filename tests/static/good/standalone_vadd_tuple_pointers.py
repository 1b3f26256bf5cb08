# original: standalone_vadd.py
# memcheck: none
# pointers and offsets unpacked from tuples written out: each followed, so every access is proven
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    xp, yp = x_ptr, y_ptr
    lo, hi = offs, mask
    x = tl.load(xp + lo, mask=hi)
    y = tl.load(yp + lo, mask=hi)
    tl.store(out_ptr + lo, x + y, mask=hi)
