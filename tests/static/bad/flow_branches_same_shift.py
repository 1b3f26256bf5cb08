# expect: 4096 elements past the original's index into 'out_ptr'
# original: standalone_vadd.py
# both branches of an if set the same shift
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if pid > 0:
        d = 4096
    else:
        d = 4096
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs + d, x + y, mask=mask)
