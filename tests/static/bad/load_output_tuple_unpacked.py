# expect: reads 'out_ptr', which the original only writes
# original: standalone_vadd.py
# pointers unpacked from a tuple, the second the output's
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a, b = x_ptr, out_ptr
    prev = tl.load(b + offs, mask=mask)
    x = tl.load(a + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + 0.0 * prev, mask=mask)
