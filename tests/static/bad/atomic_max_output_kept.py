# expect: reads 'out_ptr', which the original only writes
# original: standalone_vadd.py
# an atomic max of -3e38 into the output, its old value dropped: the output keeps what it held, a previous call's result
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n

    x = tl.load(x_ptr + offs, mask=mask)
    tl.atomic_max(out_ptr + offs, -3.0e38, mask=mask)
