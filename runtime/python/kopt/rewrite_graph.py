"""What koptmake's graph passes (rewrite_fold.py, rewrite_slice.py,
rewrite_attention.py) share: a call put into an FX graph with its fake
value, the ATen ops that only view, numbers, and whether a tensor is the
same along some axes.

Plain Python where torch is not needed: graph_facts (inductor.py) asks
constant_over of eager tensors, the folds of fake ones.
"""

from __future__ import annotations


def fake_call(op, *args):
    """op on the nodes' fake values (their meta "val"), for a new node's
    meta; None where a value is missing"""
    import torch

    def val(a):
        if isinstance(a, torch.fx.Node):
            if "val" not in a.meta:
                raise KeyError("val")
            return a.meta["val"]
        if isinstance(a, (list, tuple)):  # a list of nodes (aten.cat's)
            return type(a)(val(e) for e in a)
        return a

    try:
        return op(*[val(a) for a in args])
    except Exception:
        return None


def call(graph, op, *args):
    node = graph.call_function(op, tuple(args))
    val = fake_call(op, *args)
    if val is not None:
        node.meta["val"] = val
    return node


def views() -> set:
    """the ATen ops that only view their input in another shape"""
    import torch

    aten = torch.ops.aten
    views = {aten.view.default, aten._unsafe_view.default, aten.reshape.default}
    if hasattr(aten, "_reshape_alias"):  # a reshape as older make_fx traces it (a view with its strides)
        views.add(aten._reshape_alias.default)
    return views


def number(a) -> bool:
    return isinstance(a, (int, float)) and not isinstance(a, bool)


def constant_over(shape, ndim: int, axes) -> bool:
    """whether a tensor of shape, broadcast beside one of ndim axes, is the
    same along each of axes (the other's numbering): of size 1, or absent,
    on each (graph_facts asks it of eager tensors, the folds of fake ones)"""
    aligned = [1] * (ndim - len(shape)) + [int(e) for e in shape]
    return len(shape) <= ndim and all(aligned[a] == 1 for a in axes)
