# memcheck: cannot tell which buffer it reads (the original has such loads too)
# original: standalone_stack.py
# the stack's loads kept, with an eviction hint: a load through a loaded address, as the original's, for the memcheck
import triton
import triton.language as tl


@triton.jit
def stack_sum_kernel(addrs_ptr, out_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in tl.static_range(K):
        base = tl.load(addrs_ptr + k).to(tl.pointer_type(tl.float32))
        acc += tl.load(base + offs, mask=mask, other=0.0, eviction_policy='evict_first')
    tl.store(out_ptr + offs, acc, mask=mask)
