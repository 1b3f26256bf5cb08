"""Row softmax as a Helion kernel.

The Helion kernel file format (`helion NAME { source = "FILE.py" }` in a
spec; kopt(5) says it in full). A file holds:

- one or more ``@helion.kernel`` functions, module globals: what koptmake
  tunes. A candidate is a ``helion.Config`` for one of them (block_sizes,
  num_warps, num_stages, indexing, pid_type, loop_orders, ...); the Python
  around them stays as it is. The baseline is each kernel's own config:
  its decorator's ``config=``, else Helion's default config for the
  shapes (nothing autotunes on the first call);
- ``reference(*inputs)``: the same result in plain PyTorch (the
  correctness gate's float64 reference runs it on float64 copies);
- ``get_inputs()``: a list of tensors created on the CPU, as in
  KernelBench files (the runtime seeds the generator and moves them to the
  GPU);
- with more than one kernel, ``launch(*inputs)``: calls them by their
  global names and returns the outputs (layernorm.py has one). With one
  kernel and no launch, the kernel is called on the inputs.

Here: x 16384 x 4096 float32 (256 MiB), one tile of rows per program, the
whole row in registers: the block of rows, the warps and the indexing are
what the search varies.
"""
import torch

import helion
import helion.language as hl


@helion.kernel()
def softmax(x: torch.Tensor) -> torch.Tensor:
    n, _m = x.size()
    out = torch.empty_like(x)
    for tile_n in hl.tile(n):
        out[tile_n, :] = torch.nn.functional.softmax(x[tile_n, :], dim=1)
    return out


def reference(x):
    return torch.softmax(x, dim=-1)


rows = 16384
cols = 4096


def get_inputs():
    return [torch.randn(rows, cols)]
