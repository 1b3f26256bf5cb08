"""koptmake's split-precision products: an FX pass on the post-grad graph
(rewrites.py runs it before Inductor's own passes there).

- tf32x3_products: a float32 matrix product (mm, addmm with a bias that
  broadcasts and beta = alpha = 1, bmm) of at least products.MIN_SIDE rows
  and columns as kopt::products (products.py): one Triton kernel whose
  dots run on tensor cores at float32's accuracy (tf32x3), where cuBLAS's
  float32 product runs on the FMA units. Inductor calls it as an extern
  kernel (its own product is one too: cuBLAS's, or a template of
  max-autotune's, which the pass takes from it). A smaller product, or one
  in another dtype, stays as it was; the gates judge the variant against
  float64 and race it as any other.
"""

from __future__ import annotations

from . import products
from . import rewrite_graph as G


def _operands(node):
    """(a, b, bias) of a product node the pass takes, else None"""
    import torch

    aten = torch.ops.aten
    if node.op != "call_function" or "val" not in node.meta:
        return None
    if node.target in (aten.mm.default, aten.bmm.default) and len(node.args) == 2 and not node.kwargs:
        a, b = node.args
        bias = None
    elif node.target == aten.addmm.default and len(node.args) == 3:
        if any(node.kwargs.get(k, 1) != 1 for k in ("beta", "alpha")) or set(node.kwargs) - {"beta", "alpha"}:
            return None
        bias, a, b = node.args
        if not isinstance(bias, torch.fx.Node) or "val" not in bias.meta:
            return None
    else:
        return None
    if not all(isinstance(x, torch.fx.Node) and "val" in x.meta for x in (a, b)):
        return None
    vals = [x.meta["val"] for x in (a, b) + ((bias,) if bias is not None else ())]
    out = node.meta["val"]
    if any(v.dtype != torch.float32 for v in vals) or out.dtype != torch.float32:
        return None
    if bias is not None:
        bv = bias.meta["val"]
        if bv.dim() > 2 or any(int(s) not in (1, int(o)) for s, o in zip(reversed(bv.shape), reversed(out.shape))):
            return None  # a bias that does not broadcast to the output as it is
    m, n = int(out.shape[-2]), int(out.shape[-1])
    if m < products.MIN_SIDE or n < products.MIN_SIDE or int(a.meta["val"].shape[-1]) == 0:
        return None
    return a, b, bias


def split_products(graph) -> int:
    """An FX pass over an ATen graph: each float32 product it takes (see
    the module's doc) as kopt::products. Returns how many it replaced."""
    op = products.op()
    done = 0
    for node in list(graph.nodes):
        found = _operands(node)
        if found is None:
            continue
        a, b, bias = found
        with graph.inserting_before(node):
            new = G.call(graph, op, *((a, b) if bias is None else (a, b, bias)))
        node.replace_all_uses_with(new)
        graph.erase_node(node)
        done += 1
    return done
