# expect: candidate defines 71 functions (at most 64)
# original: standalone_vadd.py
# 70 helpers: each is read again for Triton, tokenized from its line to the end of the file
import triton
import triton.language as tl


@triton.jit
def f0(v):
    return v


@triton.jit
def f1(v):
    return v


@triton.jit
def f2(v):
    return v


@triton.jit
def f3(v):
    return v


@triton.jit
def f4(v):
    return v


@triton.jit
def f5(v):
    return v


@triton.jit
def f6(v):
    return v


@triton.jit
def f7(v):
    return v


@triton.jit
def f8(v):
    return v


@triton.jit
def f9(v):
    return v


@triton.jit
def f10(v):
    return v


@triton.jit
def f11(v):
    return v


@triton.jit
def f12(v):
    return v


@triton.jit
def f13(v):
    return v


@triton.jit
def f14(v):
    return v


@triton.jit
def f15(v):
    return v


@triton.jit
def f16(v):
    return v


@triton.jit
def f17(v):
    return v


@triton.jit
def f18(v):
    return v


@triton.jit
def f19(v):
    return v


@triton.jit
def f20(v):
    return v


@triton.jit
def f21(v):
    return v


@triton.jit
def f22(v):
    return v


@triton.jit
def f23(v):
    return v


@triton.jit
def f24(v):
    return v


@triton.jit
def f25(v):
    return v


@triton.jit
def f26(v):
    return v


@triton.jit
def f27(v):
    return v


@triton.jit
def f28(v):
    return v


@triton.jit
def f29(v):
    return v


@triton.jit
def f30(v):
    return v


@triton.jit
def f31(v):
    return v


@triton.jit
def f32(v):
    return v


@triton.jit
def f33(v):
    return v


@triton.jit
def f34(v):
    return v


@triton.jit
def f35(v):
    return v


@triton.jit
def f36(v):
    return v


@triton.jit
def f37(v):
    return v


@triton.jit
def f38(v):
    return v


@triton.jit
def f39(v):
    return v


@triton.jit
def f40(v):
    return v


@triton.jit
def f41(v):
    return v


@triton.jit
def f42(v):
    return v


@triton.jit
def f43(v):
    return v


@triton.jit
def f44(v):
    return v


@triton.jit
def f45(v):
    return v


@triton.jit
def f46(v):
    return v


@triton.jit
def f47(v):
    return v


@triton.jit
def f48(v):
    return v


@triton.jit
def f49(v):
    return v


@triton.jit
def f50(v):
    return v


@triton.jit
def f51(v):
    return v


@triton.jit
def f52(v):
    return v


@triton.jit
def f53(v):
    return v


@triton.jit
def f54(v):
    return v


@triton.jit
def f55(v):
    return v


@triton.jit
def f56(v):
    return v


@triton.jit
def f57(v):
    return v


@triton.jit
def f58(v):
    return v


@triton.jit
def f59(v):
    return v


@triton.jit
def f60(v):
    return v


@triton.jit
def f61(v):
    return v


@triton.jit
def f62(v):
    return v


@triton.jit
def f63(v):
    return v


@triton.jit
def f64(v):
    return v


@triton.jit
def f65(v):
    return v


@triton.jit
def f66(v):
    return v


@triton.jit
def f67(v):
    return v


@triton.jit
def f68(v):
    return v


@triton.jit
def f69(v):
    return v


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
