# expect: reads 'out_ptr', which the original only writes
# original: standalone_vadd.py
# a load through the output's address made an integer, a size added less itself, and made a pointer again
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    addr = out_ptr.to(tl.int64) + (n - n)
    prev = tl.load(addr.to(tl.pointer_type(tl.float32)) + offs, mask=mask)
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(prev == x + y, prev, x + y), mask=mask)
