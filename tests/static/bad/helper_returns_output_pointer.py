# expect: reads 'out_ptr', which the original only writes
# original: standalone_vadd.py
# a helper that returns the pointer it is given, plus offsets: the caller loads the output through it
import triton
import triton.language as tl


@triton.jit
def at(p, o):
    return p + o


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    prev = tl.load(at(out_ptr, offs), mask=mask)
    tl.store(out_ptr + offs, x + y + 0.0 * prev, mask=mask)
