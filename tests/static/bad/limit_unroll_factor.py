# expect: loop_unroll_factor must be a constant of at most 64
# original: standalone_vadd.py
# tl.range asked to unroll 100000 times
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
    for i in tl.range(0, n, BLOCK, loop_unroll_factor=100000):
        pass
