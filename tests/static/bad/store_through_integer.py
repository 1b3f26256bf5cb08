# expect: cannot tell which buffer it writes
# original: standalone_vadd.py
# a store through a pointer made from an integer: any allocated buffer would pass the memcheck
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    p = (out_ptr.to(tl.int64) + 0).to(tl.pointer_type(tl.float32))
    tl.store(p + offs, x + y, mask=mask)
