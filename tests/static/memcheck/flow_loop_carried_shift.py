# memcheck: its index or mask differs from the original's
# original: standalone_vadd.py
# a shift that a loop changes: 0 in the first iteration, 4096 in the next
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    d = 0
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    for i in range(0, 2):
        tl.store(out_ptr + offs + d, x + y, mask=mask)
        d = 4096
