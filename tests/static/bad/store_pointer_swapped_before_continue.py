# expect: cannot tell which buffer it writes
# original: standalone_vadd.py
# the pointer an input's when the loop continues, the output's at the end of its body: the next iteration may write the input
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    q = out_ptr
    for i in range(2):
        tl.store(q + offs, x + y, mask=mask)
        q = x_ptr
        if i == 0:
            continue
        q = out_ptr
