# expect: function 'combine' is passed as a value
# original: standalone_vadd.py
# tl.associative_scan's combine function, by keyword, loads through a helper of its own: the access is two calls away from any call site the gate sees
import triton
import triton.language as tl


@triton.jit
def fetch(a):
    return tl.load(a.to(tl.pointer_type(tl.float32))).to(tl.int64)


@triton.jit
def combine(a, b):
    return a + fetch(b)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.associative_scan((out_ptr + offs).to(tl.int64), 0, combine_fn=combine)
    tl.store(out_ptr + offs, x + y + 0.0 * z.to(tl.float32), mask=mask)
