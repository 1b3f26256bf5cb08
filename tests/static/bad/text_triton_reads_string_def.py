# expect: Triton would read function 'vadd_kernel' differently from Python
# original: standalone_vadd.py
# a decorator string whose line starts 'def vadd_kernel(': Triton compiles from there, an unmasked store
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["""
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs + n, tl.load(x_ptr + offs))
    s = '''"""])
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)  # '''
