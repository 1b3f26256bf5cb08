# expect: its pointer is made from 'x_ptr' too
# original: standalone_vadd.py
# a store through the output's pointer plus the distance from it to an input: it writes the input
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    gap = (x_ptr.to(tl.int64) - out_ptr.to(tl.int64)) // 4
    tl.store(out_ptr + gap + offs, x + y, mask=mask)
