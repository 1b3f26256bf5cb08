# expect: has a mask looser than the original's
# original: standalone_vadd.py
# the same inside a loop: n is lowered at the end of each iteration
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    for i in range(0, 1):
        x = tl.load(x_ptr + offs, mask=offs < n + 4096)
        y = tl.load(y_ptr + offs, mask=offs < n)
        tl.store(out_ptr + offs, x + y, mask=offs < n)
        n = n - 4096
