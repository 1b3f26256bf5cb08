# expect: inline assembly is not allowed
# original: standalone_vadd.py
# tl.inline_asm_elementwise
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    x = tl.inline_asm_elementwise('mov.b32 $0, $1;', '=r,r', [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(out_ptr + offs, x + y, mask=mask)
