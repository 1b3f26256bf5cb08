# expect: may read 'out_ptr', which the original only writes
# original: standalone_vadd.py
# a pointer chosen by a conditional expression between an input and the output
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = out_ptr if BLOCK > 0 else x_ptr
    x = tl.load(p + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
