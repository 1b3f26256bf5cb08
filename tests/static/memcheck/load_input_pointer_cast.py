# memcheck: cannot tell which buffer it reads
# original: standalone_vadd.py
# an input read through its pointer cast to int32 elements, two at a time as a wider load would: its own buffer, its index for the memcheck
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    bits = tl.load(x_ptr.to(tl.pointer_type(tl.int32)) + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + 0.0 * bits.to(tl.float32), mask=mask)
