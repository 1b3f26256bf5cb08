# expect: attribute 'wraps' is not allowed
# original: standalone_vadd.py
# functools.wraps reached through triton.language.math (which imports it): Triton calls it while it compiles the kernel, and wraps(peek)(keep) copies peek's attributes (its code among them) into keep, so the call the gate reads as keep's, which loads nothing, compiles as peek's load of the output
import triton
import triton.language as tl


@triton.jit
def peek(p, m):
    return tl.load(p, mask=m)


@triton.jit
def keep(p, m):
    return 0.0


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.math.wraps(peek)(keep)
    prev = keep(out_ptr + offs, mask)
    tl.store(out_ptr + offs, x + y + 0.0 * prev, mask=mask)
