# expect: its pointer is made from what the gate cannot follow
# original: standalone_vadd.py
# a helper that loads through its argument, its arguments given by *args: which buffer it reads cannot be told
import triton
import triton.language as tl


@triton.jit
def fetch(p, o, m):
    return tl.load(p + o, mask=m)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + 0.0 * fetch(*(out_ptr, offs, mask)), mask=mask)
