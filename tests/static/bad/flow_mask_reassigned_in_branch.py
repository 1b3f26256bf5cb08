# expect: has a mask looser than the original's
# original: standalone_vadd.py
# an if that loosens the mask on one path: the store's mask may be either
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if pid > 0:
        mask = offs < n + 4096
    tl.store(out_ptr + offs, x + y, mask=mask)
