# expect: carriage return (U+000D) on line 2
# x# coding: utf-7
# original: standalone_vadd.py
# two carriage returns: str.splitlines put the declaration on line 4, the encoding detector on line 2
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    x = x  #+AAo-    tl.store(out_ptr + 4096, x)
    tl.store(out_ptr + offs, x + y, mask=mask)
