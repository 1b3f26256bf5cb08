# expect: its test is made from the pointer of
# original: standalone_vadd.py
# a branch on the distance between two buffers' pointers: whether the store under it runs writes one bit of that distance as data
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    d = x_ptr.to(tl.int64) - out_ptr.to(tl.int64)
    if (d >> 20) & 1:
        tl.store(out_ptr + offs, x + y, mask=mask)
