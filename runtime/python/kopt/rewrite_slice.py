"""koptmake's sliced-product rewrite: an FX pass on the post-grad graph
(rewrites.py runs it before Inductor's own passes there).

- sliced_product: a matrix product (mm, addmm, bmm) of whose output a
  view reads only some rows (a select or slice of what an einsum made:
  Mamba's last chunk state) as the product of those rows alone, the view
  taken of the smaller output (aten.as_strided). Inductor computes the
  whole product and reads a part. An FX pass on the post-grad graph; the
  view's strides and offset, replayed on the meta device, say which rows.
"""

from __future__ import annotations

from . import rewrite_graph as G


def _view_ops() -> set:
    """the ATen ops that make a view of their first operand (other operands
    constants): what a product's output may go through before the part of
    it that is read"""
    import torch

    aten = torch.ops.aten
    ops = set(G.views()) | {aten.permute.default, aten.transpose.int, aten.t.default, aten.unsqueeze.default,
                           aten.squeeze.dim, aten.squeeze.default, aten.select.int, aten.slice.Tensor,
                           aten.expand.default, aten.alias.default}
    if hasattr(aten.squeeze, "dims"):
        ops.add(aten.squeeze.dims)
    return ops


def _part_read(chain, shape):
    """Which rows and columns of a matrix product's output ([Bt, M, N], or
    [M, N]) the last of chain (view ops from the output) reads: (rows,
    columns: each (start, stop, step), the view's shape, its strides and
    offset over the product of those rows and columns alone), or None
    where it is not a view of the output, reads all of it, or reads it in
    a way such a product cannot give. Each axis of the view must move over
    whole batches, over rows or within a row; one axis over rows (or over
    columns) is read with its step, several over their span. The chain is
    replayed on a tensor of the output's shape on the meta device: its
    strides and offset say what the view reads."""
    import torch

    base = torch.empty(shape, device="meta")
    t = base
    for n in chain:
        rest = list(n.args[1:]) + list(n.kwargs.values())
        if any(isinstance(a, torch.fx.Node) or isinstance(a, (list, tuple)) and
               any(isinstance(e, torch.fx.Node) for e in a) for a in rest):
            return None
        try:
            t = n.target(t, *n.args[1:], **n.kwargs)
        except Exception:
            return None
    if t is base or not t._is_view() or t._base is not base:
        return None  # a copy (a reshape that could not view), or the output itself
    M, N = int(shape[-2]), int(shape[-1])
    off = int(t.storage_offset())
    b0, m0, n0 = off // (M * N), off % (M * N) // N, off % N
    axes = []  # (kind, size, step in its unit: batches, rows, columns)
    for size, st in zip(t.shape, t.stride()):
        size, st = int(size), int(st)
        if size == 1:
            axes.append(("one", size, st))
        elif st % (M * N) == 0:
            axes.append(("batch", size, st // (M * N)))
        elif st % N == 0 and st < M * N:
            axes.append(("row", size, st // N))
        elif st < N:
            axes.append(("col", size, st))
        else:
            return None

    def span(kind, first):
        """(start, stop, step) over the axes of kind, and whether one axis
        alone (read with its step)"""
        mine = [(size, step) for k, size, step in axes if k == kind]
        if len(mine) == 1:
            size, step = mine[0]
            return (first, first + (size - 1) * step + 1, step), True
        last = first + sum((size - 1) * step for size, step in mine)
        return (first, last + 1, 1), False

    (rows, one_row), (cols, one_col) = span("row", m0), span("col", n0)
    if rows[1] > M or cols[1] > N:
        return None
    R, C = len(range(*rows)), len(range(*cols))
    if R == M and C == N:
        return None
    strides = []
    for kind, size, step in axes:
        if kind == "batch":
            strides.append(step * R * C)
        elif kind == "row":
            strides.append(C if one_row else step * C)
        elif kind == "col":
            strides.append(1 if one_col else step)
        else:
            strides.append(step)
    return rows, cols, [int(e) for e in t.shape], strides, b0 * R * C


def slice_products(graph) -> int:
    """An FX pass over an ATen graph: a matrix product (mm, addmm with a
    bias over the features, bmm) of whose output only some rows or columns
    are read, through views (a select or a slice of what an einsum made:
    Mamba's last chunk state, a sequence's last position), as the product
    of those rows of its left operand and columns of its right alone, the
    view taken of that smaller output (aten.as_strided). Only where each
    node from the product to the view has that one use. Returns how many
    products it shrank."""
    import torch

    aten = torch.ops.aten
    views = _view_ops()
    shrunk = 0
    for prod in list(graph.nodes):
        if prod.op != "call_function" or prod.target not in (aten.mm.default, aten.addmm.default, aten.bmm.default) \
                or prod.kwargs or "val" not in prod.meta:
            continue
        if prod.target == aten.addmm.default:
            bias, a, b = prod.args
            bv = bias.meta.get("val") if isinstance(bias, torch.fx.Node) else None
            if bv is None or bv.dim() > 2 or (bv.dim() == 2 and int(bv.shape[0]) != 1):
                continue  # a bias of its own per row: not a vector over the features
        else:
            bias, (a, b) = None, prod.args
        chain, node = [], prod
        while len(node.users) == 1:
            user = next(iter(node.users))
            if user.op != "call_function" or user.target not in views or user.args[0] is not node:
                break
            chain.append(user)
            node = user
        if not chain:
            continue
        shape = [int(e) for e in prod.meta["val"].shape]
        read = _part_read(chain, shape)
        if read is None:
            continue
        rows, cols, vshape, vstrides, voff = read
        rowdim = 1 if prod.target == aten.bmm.default else 0
        last = chain[-1]
        with graph.inserting_before(last):
            if rows != (0, shape[-2], 1):
                a = G.call(graph, aten.slice.Tensor, a, rowdim, *rows)
            if cols != (0, shape[-1], 1):
                b = G.call(graph, aten.slice.Tensor, b, rowdim + 1, *cols)
                if bias is not None:  # the bias's features: those columns
                    bias = G.call(graph, aten.slice.Tensor, bias, bias.meta["val"].dim() - 1, *cols)
            small = G.call(graph, prod.target, *((a, b) if bias is None else (bias, a, b)))
            view = G.call(graph, aten.as_strided.default, small, vshape, vstrides, voff)
        last.replace_all_uses_with(view)
        shrunk += 1
    if shrunk:
        graph.eliminate_dead_code()
    return shrunk
