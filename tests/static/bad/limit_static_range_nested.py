# expect: tl.static_range unrolls more than 1024 bodies (with the loops around it)
# original: standalone_vadd.py
# two nested static_ranges of 64: 4096 bodies
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    for i in tl.static_range(64):
        for j in tl.static_range(64):
            pass
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
