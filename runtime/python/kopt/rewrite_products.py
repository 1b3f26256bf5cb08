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
    """(a, b, bias) of a product node the pass takes, else None. The
    operands and addmm's bias have the output's dtype, and the bias
    broadcasts to the output, by the ops' own contract (as kopt::products
    takes them)."""
    import torch

    aten = torch.ops.aten
    if node.op != "call_function" or "val" not in node.meta:
        return None
    if node.target in (aten.mm.default, aten.bmm.default):
        (a, b), bias = node.args, None
    elif node.target == aten.addmm.default and all(node.kwargs.get(k, 1) == 1 for k in ("beta", "alpha")):
        bias, a, b = node.args
    else:
        return None
    out = node.meta["val"]
    if out.dtype != torch.float32 or int(out.shape[-2]) < products.MIN_SIDE or int(out.shape[-1]) < products.MIN_SIDE:
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
