"""A standalone Triton kernel with a while loop before its accesses: the
sum of the first k halvings of x (k a number argument), then out = x + s."""
import triton
import triton.language as tl


@triton.jit
def while_kernel(x_ptr, out_ptr, n, k, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = 0.0
    i = 0
    while i < k:
        s += 0.5
        i += 1
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + s, mask=mask)
