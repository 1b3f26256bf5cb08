"""A CUDA-graph variant's copy of its inputs at the speed of a copy.

Before each replay, Inductor's CUDA graphs (cudagraph trees:
triton.cudagraphs, mode="reduce-overhead") copy the call's inputs that are
not static (the model's own inputs; its parameters are static) into the
graph's buffers, all with one ``torch._foreach_copy_``
(``CUDAGraphNode._copy_inputs_and_remove_from_src``). The foreach kernel
gives one block to each chunk of 65,536 elements, so one large input is
copied by a few blocks on a GPU of 132 SMs: the GPT-2 block's 1.57 MB input
at batch 1 took 14.7 us of the block's 80 us of device time on an H100, in
torch.compile's reduce-overhead mode as in every koptmake variant with CUDA
graphs (bench/results/2026-12-07c-h100-graph-copy). A plain copy of it
(``Tensor.copy_``, one launch too) fills the GPU.

install() wraps that method: while it runs, ``torch._foreach_copy_``
copies each tensor of ``BIG`` elements or more with ``Tensor.copy_`` and
the others together with the foreach kernel, as before. The same values
land in the same buffers, in the same stream order; only the kernels that
copy them change. Where torch has no such method, or the method copies
some other way, nothing changes. KOPT_GRAPH_COPY=0 leaves torch as it is.
The workers install it before every compile (inductor.compile_hooks), so
the race times what kopt.backend, which installs it too, deploys.

variant_graphs() says which variants run as CUDA graphs at all, for every
Python part that asks (the worker's Compiled.graphs, the memcheck's guarded
run): GRAPH_MODES is the one Python copy of rules/space_pick.c's
rule_mode_graphs (tests/lists.py).
"""

from __future__ import annotations

import functools
import os

BIG = 1 << 16  # elements: one chunk of the foreach kernel, one block's work
GRAPH_MODES = ("reduce-overhead", "max-autotune")  # torch.compile's modes that run CUDA graphs

_WRAPPED = "_kopt_graph_copy"


def variant_graphs(variant: dict) -> bool:
    """whether a variant's compiled code runs as CUDA graphs: its mode's
    (GRAPH_MODES), unless its options set triton.cudagraphs (rules/space.c's
    rule_variant_graphs)"""
    on = variant.get("mode") in GRAPH_MODES
    return bool((variant.get("options") or {}).get("triton.cudagraphs", on))


def split_copy(foreach, dsts, srcs, *args, **kwargs) -> None:
    """dsts[i] <- srcs[i] for each i: tensors of BIG elements or more each
    by its own copy, the rest by foreach (torch's _foreach_copy_) at once,
    or one by one where there is none."""
    small = []
    for d, s in zip(dsts, srcs):
        if d.numel() >= BIG:
            d.copy_(s, *args, **kwargs)
        else:
            small.append((d, s))
    if not small:
        return
    if foreach is None:
        for d, s in small:
            d.copy_(s, *args, **kwargs)
        return
    foreach([d for d, _ in small], [s for _, s in small], *args, **kwargs)


def wrap(node_cls, torch_mod) -> bool:
    """node_cls's _copy_inputs_and_remove_from_src made to copy through
    split_copy (once); True where it is wrapped."""
    method = getattr(node_cls, "_copy_inputs_and_remove_from_src", None)
    if method is None:
        return False
    if getattr(method, _WRAPPED, False):
        return True

    @functools.wraps(method)
    def copy_inputs(self, *args, **kwargs):
        foreach = getattr(torch_mod, "_foreach_copy_", None)
        setattr(torch_mod, "_foreach_copy_", functools.partial(split_copy, foreach))
        try:
            return method(self, *args, **kwargs)
        finally:
            if foreach is None:
                delattr(torch_mod, "_foreach_copy_")
            else:
                setattr(torch_mod, "_foreach_copy_", foreach)

    setattr(copy_inputs, _WRAPPED, True)
    setattr(node_cls, "_copy_inputs_and_remove_from_src", copy_inputs)
    return True


def install() -> bool:
    """Wraps cudagraph trees' input copy unless KOPT_GRAPH_COPY is 0; True
    where it is wrapped."""
    if os.environ.get("KOPT_GRAPH_COPY", "1").strip() == "0":
        return False
    try:
        import torch
        from torch._inductor import cudagraph_trees
    except ImportError:
        return False
    node = getattr(cudagraph_trees, "CUDAGraphNode", None)
    return node is not None and wrap(node, torch)
