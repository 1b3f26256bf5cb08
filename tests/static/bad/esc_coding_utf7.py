# expect: coding declaration 'utf-7' on line 2
# -*- coding: utf-7 -*-
# original: standalone_vadd.py
# a UTF-7 coding declaration: the import decodes +AAo- as a newline, the gate saw a comment
import triton
import triton.language as tl
#+AAo-import os

@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
