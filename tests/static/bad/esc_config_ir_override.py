# expect: keyword 'ir_override' is not allowed
# original: standalone_rowsum.py
# triton.Config(ir_override=PATH): Triton compiles that file in place of the checked source
"""A standalone autotuned Triton kernel: the sum of each row."""
import triton
import triton.language as tl


# triton.Config's ir_override: Triton's compile() replaces the stage whose
# extension the path ends with (.ttir/.ttgir/.llir/.ptx/.cubin) by the file's
# contents, so what runs is that file, not the gate-checked body below
@triton.autotune(
    configs=[triton.Config({'BLOCK': 1024}, num_warps=4, ir_override='/tmp/rowsum_kernel.ptx'),
             triton.Config({'BLOCK': 2048}, num_warps=8, ir_override='/tmp/rowsum_kernel.ptx')],
    key=['n_cols'],
)
@triton.jit
def rowsum_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, 0))
