# expect: key 'extern_libs' is not a parameter
# original: standalone_rowsum.py
# a config key that is no kernel parameter is a compile option: extern_libs links a chosen bitcode file as libdevice
"""A standalone autotuned Triton kernel: the sum of each row."""
import triton
import triton.language as tl


# a key of the config dict that is no parameter of the kernel goes to Triton
# as a compile option: extern_libs links an LLVM bitcode file of the
# candidate's choosing in place of libdevice, whose functions (here exp)
# the kernel then calls
@triton.autotune(
    configs=[triton.Config({'BLOCK': 1024, 'extern_libs': (('libdevice', '/tmp/libdevice.10.bc'),)}, num_warps=4),
             triton.Config({'BLOCK': 2048, 'extern_libs': (('libdevice', '/tmp/libdevice.10.bc'),)}, num_warps=8)],
    key=['n_cols'],
)
@triton.jit
def rowsum_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.extra.libdevice.log1p(tl.sum(acc, 0)))
