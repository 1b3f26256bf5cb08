# expect: reads 'out_ptr', which the original only writes
# original: standalone_vadd.py
# a load through the output's pointer cast to another pointer type: what the output held before the call
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    prev = tl.load(out_ptr.to(tl.pointer_type(tl.float32)) + offs, mask=mask)
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + 0.0 * prev, mask=mask)
