# memcheck: its index or mask differs from the original's
# original: standalone_vadd.py
# the pointer's index along one axis (offs[:, None]), the mask along the other (offs[None, :]): in the [B, B] broadcast, element (i, j) is written at offs_i where offs_j < n; the index is placed on its axes (static_forms.axes), so it is not the original's
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(tl.broadcast_to(x_ptr + offs[:, None], [BLOCK, BLOCK]), mask=offs[None, :] < n)
    y = tl.load(y_ptr + offs, mask=mask)
    v = x + y[:, None]
    tl.store(tl.broadcast_to(out_ptr + offs[:, None], [BLOCK, BLOCK]), v, mask=offs[None, :] < n)
