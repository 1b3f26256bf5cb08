# expect: 'out_ptr', which the original only writes
# original: standalone_vadd.py
# a helper's parameter annotated tl.constexpr still takes a pointer (Triton makes a parameter constexpr by the value passed, not by its annotation); the output's address comes back through it and a load reads the output (before, the gate took such a parameter for a number)
import triton
import triton.language as tl


@triton.jit
def addr(p: tl.constexpr):
    return p.to(tl.int64)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    q = x_ptr + (addr(out_ptr) - x_ptr.to(tl.int64)) // 4
    prev = tl.load(q + offs, mask=mask)
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + 0.0 * prev, mask=mask)
