# memcheck: its index or mask differs from the original's
# original: standalone_vadd.py
# constants that sum to 0 as integers, applied across an int32 wrap then an int64 widening: the store lands 2**32 elements before out; not folded, not proven
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + (offs + 2147483647 + 4294967296 - 2147483647 - 4294967296), x + y, mask=mask)
