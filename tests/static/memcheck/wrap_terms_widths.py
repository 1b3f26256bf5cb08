# memcheck: its index or mask differs from the original's
# original: standalone_vadd.py
# terms added and taken away again across two widths: t + t wraps in int32 before the int64 w joins, so (t + t + w) - t - t - w is not 0 at run time; a term that is taken away again is not folded (static_bounds.Flow.add)
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    t = offs * 65536
    w = pid.to(tl.int64)
    tl.store(out_ptr + (t + t + w - t - t - w + offs), x + y, mask=mask)
