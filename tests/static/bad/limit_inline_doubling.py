# expect: compiles more than 16384 bodies
# original: standalone_vadd.py
# 20 helpers that each call the next twice: 2**20 bodies once Triton inlines them
import triton
import triton.language as tl


@triton.jit
def h0(v):
    return h1(v) + h1(v)


@triton.jit
def h1(v):
    return h2(v) + h2(v)


@triton.jit
def h2(v):
    return h3(v) + h3(v)


@triton.jit
def h3(v):
    return h4(v) + h4(v)


@triton.jit
def h4(v):
    return h5(v) + h5(v)


@triton.jit
def h5(v):
    return h6(v) + h6(v)


@triton.jit
def h6(v):
    return h7(v) + h7(v)


@triton.jit
def h7(v):
    return h8(v) + h8(v)


@triton.jit
def h8(v):
    return h9(v) + h9(v)


@triton.jit
def h9(v):
    return h10(v) + h10(v)


@triton.jit
def h10(v):
    return h11(v) + h11(v)


@triton.jit
def h11(v):
    return h12(v) + h12(v)


@triton.jit
def h12(v):
    return h13(v) + h13(v)


@triton.jit
def h13(v):
    return h14(v) + h14(v)


@triton.jit
def h14(v):
    return h15(v) + h15(v)


@triton.jit
def h15(v):
    return h16(v) + h16(v)


@triton.jit
def h16(v):
    return h17(v) + h17(v)


@triton.jit
def h17(v):
    return h18(v) + h18(v)


@triton.jit
def h18(v):
    return h19(v) + h19(v)


@triton.jit
def h19(v):
    return h20(v) + h20(v)


@triton.jit
def h20(v):
    return v


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, h0(x) + y, mask=mask)
