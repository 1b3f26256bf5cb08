# memcheck: load at line 19 (tl.load(addrs_ptr + k)): its index or mask differs
# original: standalone_stack.py
# the original's tl.static_range(K) as tl.range(K, arg2=2 * K): Triton binds arg2 as the end, so
# k runs from K to 2K - 1 and the unmasked load reads K addresses past the K the array holds
# (written after the range binding: the end by keyword, not the step)
"""A standalone Triton kernel over a stack of tensors given by their
addresses (as Helion's stack tensors are): out[i] = sum over k of x_k[i]."""
import triton
import triton.language as tl


@triton.jit
def stack_sum_kernel(addrs_ptr, out_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in tl.range(K, arg2=2 * K):
        base = tl.load(addrs_ptr + k).to(tl.pointer_type(tl.float32))
        acc += tl.load(base + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, acc, mask=mask)
