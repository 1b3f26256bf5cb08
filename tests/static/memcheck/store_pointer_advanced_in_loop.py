# memcheck: store at line 17 (tl.store(op + offs, x + y, mask=mask)): its index or mask differs
# original: standalone_vadd.py
# a store through a pointer a loop advances by a constexpr: its buffer followed through the loop (the output), its index to the memcheck
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    op = out_ptr
    for i in range(1):
        tl.store(op + offs, x + y, mask=mask)
        op += BLOCK
