# expect: line separator (U+2028) on line 2
#  # -*- coding: utf-7 -*-
# original: standalone_vadd.py
# U+2028 before the declaration: a line break to str.splitlines only
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
