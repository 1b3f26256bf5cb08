# expect: reads 'out_ptr', which the original only writes
# original: standalone_stack.py
# where the original loads through loaded addresses, a load through the output's pointer, cast, is still rejected
import triton
import triton.language as tl


@triton.jit
def stack_sum_kernel(addrs_ptr, out_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(out_ptr.to(tl.pointer_type(tl.float32)) + offs, mask=mask, other=0.0) * 0.0
    for k in tl.static_range(K):
        base = tl.load(addrs_ptr + k).to(tl.pointer_type(tl.float32))
        acc += tl.load(base + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, acc, mask=mask)
