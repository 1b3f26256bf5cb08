"""Vector addition: a standalone Triton kernel.

The standalone kernel format (`kernel NAME { source = "kernels/FILE.py" }` in
a spec). A file holds:

- one or more ``@triton.jit`` kernels: what the agents optimise. A candidate
  replaces the ``@triton.jit`` functions only, never the code around them,
  and keeps their names, parameters and decorators (the static gate,
  runtime/python/kopt/static_gate.py, checks it);
- ``launch(*inputs)``: allocates the outputs, launches the kernel(s) and
  returns the output tensor (or a tuple of them). Inputs are on the GPU
  already. It is what the runtime times and profiles; its launch parameters
  (grid, block sizes, num_warps) are plain Python here, so that a tuner can
  change them;
- ``reference(*inputs)``: the same result in plain PyTorch, the correctness
  gate's baseline (and, run on float64 copies of the inputs, the fp64
  reference);
- ``get_inputs()``: a list of tensors created on the CPU (``torch.randn``
  and the like, no ``.cuda()``): the runtime seeds the generator, calls it
  and moves the tensors to the GPU, as for KernelBench-format models.

Here: out = x + y over 2^27 float32 elements (512 MiB per tensor, 1.5 GiB in
all): a bandwidth-bound kernel whose block size and num_warps decide how
close it gets to the copy bandwidth.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


BLOCK = 1024
NUM_WARPS = 4


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, BLOCK),)
    vadd_kernel[grid](x, y, out, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
    return out


def reference(x, y):
    return x + y


n = 1 << 27


def get_inputs():
    return [torch.randn(n), torch.randn(n)]
