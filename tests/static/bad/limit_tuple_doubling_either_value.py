# expect: a compile-time string, tuple or list of more than 65536 elements
# original: standalone_vadd.py
# a tuple of one element or of two, as a conditional expression picks it,
# doubled in 16 unrolled iterations: the longer reaches 131072 elements
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    t = (0,) if BLOCK > 1024 else (0, 1)
    for i in tl.static_range(16):
        t = t + t
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
