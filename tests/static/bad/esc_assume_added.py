# expect: is not one of the original's assumptions
# original: standalone_vadd.py
# tl.assume(n == 2**30), which the original does not assume: the compiler may put the constant for n in the masks it dominates
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # a false promise to the compiler: LLVM's GVN replaces n by the constant
    # in what the assume dominates, so the masks below test offs < 2**30
    tl.assume(n == 1073741824)
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
