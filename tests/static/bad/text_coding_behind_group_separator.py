# expect: group separator (U+001D) on line 2
## -*- coding: utf-7 -*-
# original: standalone_vadd.py
# U+001D before the declaration: str.splitlines put it on line 3, the tokenizer on line 2
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
