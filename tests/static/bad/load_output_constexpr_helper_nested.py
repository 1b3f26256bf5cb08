# expect: 'out_ptr', which the original only writes
# original: standalone_vadd.py
# the constexpr-annotated parameter two helpers down: outer passes its own parameter on to inner's tl.constexpr one, which returns the output's address
import triton
import triton.language as tl


@triton.jit
def inner(P: tl.constexpr, k):
    return P.to(tl.int64) + k


@triton.jit
def outer(p, k: tl.constexpr):
    return inner(p, k)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    prev = tl.load(y_ptr + (outer(out_ptr, 0) - y_ptr.to(tl.int64)) // 4 + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + 0.0 * prev, mask=mask)
