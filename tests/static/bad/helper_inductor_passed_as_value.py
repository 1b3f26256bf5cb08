# expect: Inductor's helper 'x_grid_barrier' is passed as a value
# original: standalone_vadd.py
# one of Inductor's helpers that loads and stores through its argument (a grid barrier's semaphore), given to tl.reduce as the combine function: Triton calls it with the elements, the output's addresses
import triton
import triton.language as tl

from torch._inductor.runtime import triton_helpers


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.reduce((out_ptr + offs).to(tl.int64), 0, triton_helpers.x_grid_barrier)
    tl.store(out_ptr + offs, x + y + 0.0 * z.to(tl.float32), mask=mask)
