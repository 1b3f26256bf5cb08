# expect: (a number larger than 1024 bits)
# original: standalone_vadd.py
# a product of 32 large powers at import
import triton
import triton.language as tl
BIG = 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64 * 10 ** 64


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
