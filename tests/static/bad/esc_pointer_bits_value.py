# expect: its value is made from the pointer of
# original: standalone_vadd.py
# the distance between two buffers written as data, to be loaded back by a later call as an index the gate cannot follow
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    d = (x_ptr.to(tl.int64) - out_ptr.to(tl.int64)).to(tl.float32)
    tl.store(out_ptr + offs, x + y + 0.0 * d, mask=mask)
