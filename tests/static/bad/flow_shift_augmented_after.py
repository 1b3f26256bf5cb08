# expect: 64 elements past the original's index into 'out_ptr'
# original: standalone_vadd.py
# an index moved by += after its first use, and moved back later
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = offs + 64
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + idx, x + y, mask=mask)
    idx -= 64
