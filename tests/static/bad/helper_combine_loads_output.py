# expect: function 'peek' is passed as a value
# original: standalone_vadd.py
# tl.reduce's combine function loads through the elements it combines: the output's addresses, cast to integers; Triton calls it with them inside the reduction, where no call site shows the gate which buffer it reads (before, its load went to the memcheck as a helper's, which passes it)
import triton
import triton.language as tl


@triton.jit
def peek(a, b):
    return a + tl.load(b.to(tl.pointer_type(tl.float32))).to(tl.int64)


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.reduce((out_ptr + offs).to(tl.int64), 0, peek)
    tl.store(out_ptr + offs, x + y + 0.0 * z.to(tl.float32), mask=mask)
