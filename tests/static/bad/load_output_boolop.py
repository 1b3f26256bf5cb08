# expect: reads 'out_ptr', which the original only writes
# original: standalone_stack.py
# the output's pointer behind a constexpr test and `and` (Triton folds the test away), where loads through unnamed pointers go to the memcheck
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
    for k in tl.static_range(K):
        base = tl.load(addrs_ptr + k).to(tl.pointer_type(tl.float32))
        acc += tl.load(base + offs, mask=mask, other=0.0)
    old = tl.load(((K > 0) and out_ptr) + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, acc + 0.0 * old, mask=mask)
