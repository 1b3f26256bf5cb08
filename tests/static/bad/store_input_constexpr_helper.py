# expect: its pointer is made from 'x_ptr' too
# original: standalone_vadd.py
# a store into the input x through the output's pointer plus the distance to x, x's address passed through a helper's tl.constexpr parameter
import triton
import triton.language as tl


@triton.jit
def distance(a: tl.constexpr, b):
    return (a.to(tl.int64) - b.to(tl.int64)) // 4


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
    tl.store(out_ptr + distance(x_ptr, out_ptr) + offs, x * 0.0, mask=mask)
