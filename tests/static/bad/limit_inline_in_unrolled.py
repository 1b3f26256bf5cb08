# expect: compiles more than 16384 bodies
# original: standalone_vadd.py
# a helper that unrolls 1024 bodies, called in a loop unrolled 64 times
import triton
import triton.language as tl


@triton.jit
def wide(v):
    for i in tl.static_range(1024):
        v = v + 1
    return v


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = 0
    for j in tl.static_range(64):
        acc = wide(acc)
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
