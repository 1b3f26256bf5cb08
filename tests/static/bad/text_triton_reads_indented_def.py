# expect: Triton would read function 'vadd_kernel' differently
# original: standalone_vadd.py
# a continuation line inside the decorator that starts 'def': the first match of Triton's cut
import triton
import triton.language as tl


@triton.jit(
    debug=False,
    do_not_specialize=['''
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass
    s = """'''])
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)  # """
