# original: standalone_vadd.py
# a helper with a tl.constexpr parameter given the kernel's block size: an index, no pointer through it
import triton
import triton.language as tl


@triton.jit
def block_index(pid, B: tl.constexpr):
    return pid * B + tl.arange(0, B)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = block_index(pid, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
