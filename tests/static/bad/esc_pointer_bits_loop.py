# expect: its value is made from the pointer of
# original: standalone_vadd.py
# a loop that runs as often as the low bits of a pointer say: the counter it leaves is those bits, stored as data
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    c = 0
    for i in range(y_ptr.to(tl.int64) & 1023):
        c += 1
    tl.store(out_ptr + offs, x + y + c, mask=mask)
