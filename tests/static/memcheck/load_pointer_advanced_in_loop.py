# memcheck: load at line 16 (tl.load(xp + offs, mask=mask)): its index or mask differs
# original: standalone_vadd.py
# a load through a pointer a loop advances (what a tiled loop does): its buffer followed through the loop, its index to the memcheck
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    xp = x_ptr
    x = tl.zeros([BLOCK], tl.float32)
    for i in range(1):
        x += tl.load(xp + offs, mask=mask)
        xp += BLOCK
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
