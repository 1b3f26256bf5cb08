# expect: not only from the buffer it writes
# original: standalone_vadd.py
# a load whose mask is all false returns its other=: the out-to-x distance as other becomes data, and the store through it lands exactly on x (a load's mask and other decide its value)
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    # the distance from out to x, in elements, as the bits of a float32
    delta = ((x_ptr.to(tl.int64) - out_ptr.to(tl.int64)) // 4).to(tl.int32).to(tl.float32, bitcast=True)
    # a load whose mask is false everywhere returns its `other`: the distance, now "data"
    d = tl.load(x_ptr + offs, mask=mask & (offs < 0), other=delta).to(tl.int32, bitcast=True)
    tl.store(out_ptr + offs + d, x * 0.0, mask=mask)   # lands exactly on x[offs]: zeroes the input
    tl.store(out_ptr + offs, x + y, mask=mask)
