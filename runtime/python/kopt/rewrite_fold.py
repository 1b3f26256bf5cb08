"""koptmake's linear-reduction fold: FX passes on the post-grad graph
(rewrites.py runs them before Inductor's own passes there).

- linear_reduction_fold: a sum or mean over the output features of a
  matrix product (mm, addmm or bmm, through a bias, a vector over the
  features or a number added or subtracted, multiplications and
  divisions by numbers and views) as the product with the weights summed
  first: x times the summed weights, summed over x's last axis (x @ W
  summed over j is the sum over k of x[..., k] * (W summed over j)[k]),
  one reduction reading x once in place of a matrix product; and a mean
  or sum over every spatial axis of a transposed convolution, through
  numbers and per-channel tensors (a bias, a scale, a batch norm's
  inference form), as the input summed over its spatial axes times the
  weights summed over their taps (every input element meets every tap
  once inside an unpadded output; with padding, per tap over the input
  indices that land inside the cropped one); and a sum or mean over the
  channels of a convolution, forward or transposed, through numbers and
  tensors of one channel, as the convolution with its output channels'
  weights summed first (one output channel per group). FX passes on the
  post-grad graph (after Inductor's decompositions, before its own
  post-grad passes), not decompositions: they see several ops.
"""

from __future__ import annotations

import math

from . import rewrite_graph as G


def _feature_bias(b, node) -> bool:
    """whether b, added to node's other operand, is a vector over its
    features (its last axis) alone"""
    import torch

    if not isinstance(b, torch.fx.Node) or "val" not in b.meta or "val" not in node.meta:
        return False
    bv, nv = b.meta["val"], node.meta["val"]
    return bv.dim() == 1 and nv.dim() >= 1 and int(bv.shape[0]) == int(nv.shape[-1])


def fold_linear_reductions(graph) -> int:
    """An FX pass over an ATen graph: sum (or mean) over the output features
    of a matrix product, through multiplications and divisions by numbers,
    as the product with the weights summed first,
        sum_j (x @ W + b)[i, j] * c = (sum_k x[i, k] * sum_j W[k, j] + sum_j b[j]) * c,
    that is x times the summed weights (broadcast), summed over x's last
    axis (aten.mul, then aten.sum): one reduction that reads x once in
    place of a matrix product. Not aten.mv: it is in Inductor's
    decomposition table, and Inductor has no lowering for it in a
    post-grad graph. The product is an mm or addmm (x [M, K], W [K, N]:
    [M]) or a bmm (x [B, S, K], W [B, K, N], its weights summed to
    [B, 1, K]: [B, S]); a bias added (or a vector subtracted) after it is
    a vector over the features, whose sum the sum takes; a number added or
    subtracted, n times it over n features; views between that keep the
    features last are followed (a linear layer on a 3-D input). Only where
    each intermediate has that one use. Returns how many it folded."""
    import torch

    aten = torch.ops.aten
    views = G.views()
    folded = 0
    for red in list(graph.nodes):
        if red.op != "call_function" or red.target not in (aten.sum.dim_IntList, aten.mean.dim):
            continue
        dims = red.args[1] if len(red.args) > 1 else None
        src = red.args[0].meta.get("val") if isinstance(red.args[0], torch.fx.Node) else None
        out = red.meta.get("val")
        if red.kwargs.get("dtype") is not None or not isinstance(dims, (list, tuple)) or len(dims) != 1 \
                or src is None or out is None or int(dims[0]) % src.dim() != src.dim() - 1:
            continue  # over the last axis only: the features
        # numbers multiplied or divided by, vectors over the features and
        # numbers added or subtracted, and views that keep the features
        # last (a linear layer on a 3-D input is a view, a product, a view):
        # (op, operand, how the sum takes it: "as is", "its sum", "times n")
        chain, node = [], red.args[0]
        while isinstance(node, torch.fx.Node) and node.op == "call_function" and len(node.users) == 1:
            if node.target in (aten.mul.Tensor, aten.div.Tensor) and G.number(node.args[1]):
                chain.append((node.target, node.args[1], "as is"))
            elif node.target in (aten.add.Tensor, aten.sub.Tensor) and len(node.args) == 2 and not node.kwargs \
                    and _feature_bias(node.args[1], node):
                chain.append((node.target, node.args[1], "its sum"))  # a bias added after the product: its sum
            elif node.target in (aten.add.Tensor, aten.sub.Tensor) and len(node.args) == 2 and not node.kwargs \
                    and G.number(node.args[1]) and "val" in node.meta:
                # a number added to each of n features: n times it
                chain.append((node.target, node.args[1] * int(node.meta["val"].shape[-1]), "times n"))
            elif node.target in views and \
                    isinstance(node.args[0], torch.fx.Node) and "val" in node.args[0].meta and "val" in node.meta \
                    and int(node.args[0].meta["val"].shape[-1]) == int(node.meta["val"].shape[-1]):
                pass
            else:
                break
            node = node.args[0]
        if not isinstance(node, torch.fx.Node) or node.op != "call_function" or len(node.users) != 1:
            continue
        if node.target == aten.mm.default:
            bias, x, w = None, node.args[0], node.args[1]
        elif node.target == aten.addmm.default and len(node.args) == 3 and not node.kwargs:
            bias, x, w = node.args
        elif node.target == aten.bmm.default and len(node.args) == 2 and not node.kwargs:
            bias, x, w = None, node.args[0], node.args[1]
        else:
            continue
        if not isinstance(x, torch.fx.Node) or not isinstance(w, torch.fx.Node):
            continue
        wv, xv = w.meta.get("val"), x.meta.get("val")
        bv = bias.meta.get("val") if isinstance(bias, torch.fx.Node) else None
        d = 3 if node.target == aten.bmm.default else 2
        if wv is None or xv is None or wv.dim() != d or xv.dim() != d or \
                (bias is not None and (bv is None or bv.dim() != 1)):
            continue
        n = int(wv.shape[-1])
        with graph.inserting_before(red):
            # x times the weights summed over the features, summed over x's
            # last axis: a reduction Inductor lowers (it has no lowering for
            # aten.mv after its decompositions), reading x once
            ws = G.call(graph, aten.sum.dim_IntList, w, [d - 1])  # [K], or [B, K] for bmm
            if d == 3:
                ws = G.call(graph, aten.view.default, ws, [int(wv.shape[0]), 1, int(wv.shape[1])])
            v = G.call(graph, aten.sum.dim_IntList, G.call(graph, aten.mul.Tensor, x, ws), [d - 1])
            if bias is not None:
                v = G.call(graph, aten.add.Tensor, v, G.call(graph, aten.sum.default, bias))
            for op, c, how in reversed(chain):
                v = G.call(graph, op, v, G.call(graph, aten.sum.default, c) if how == "its sum" else c)
            if red.target == aten.mean.dim:
                v = G.call(graph, aten.div.Tensor, v, n)
            shape = [int(e) for e in out.shape]
            if shape != [int(e) for e in xv.shape[:-1]]:  # the reduction's own shape (views, keepdim):
                # a view (post-grad graphs hold no reshape) of the contiguous sum made
                v = G.call(graph, aten.view.default, v, shape)
        red.replace_all_uses_with(v)
        folded += 1
    if folded:
        graph.eliminate_dead_code()
    return folded


def _operand_over(o, y, axes) -> bool:
    """whether operand o beside y [B, C, *L] is the same along axes (y's
    numbering): a number, or a node whose value is (a bias [C, 1, 1] or a
    batch norm's unsqueezed parameters along the spatial axes, a tensor of
    one channel along the channels); a reduction over axes then takes it
    as it takes a number"""
    import torch

    if G.number(o):
        return True
    if not isinstance(o, torch.fx.Node) or "val" not in o.meta or "val" not in y.meta:
        return False
    return G.constant_over(o.meta["val"].shape, y.meta["val"].dim(), axes)


def _tap_sums(graph, x, axis: int, n: int, k: int, s: int, p: int, d: int, out_len: int):
    """x summed over axis, once per tap t of a transposed convolution's
    kernel along it: over the input indices i whose product lands inside
    the cropped output (p <= i*s + t*d < out_len + p), each as the whole
    axis less the indices before and after that range (a few rows: the
    padding's reach), the k sums on a new last axis."""
    import torch

    aten = torch.ops.aten
    whole = G.call(graph, aten.sum.dim_IntList, x, [axis])
    per_tap = []
    for t in range(k):
        lo = max(0, -((t * d - p) // s))                 # ceil((p - t*d) / s)
        hi = min(n - 1, (out_len + p - 1 - t * d) // s)
        if lo > hi:
            v = G.call(graph, aten.mul.Tensor, whole, 0.0)
        else:
            v = whole
            if lo > 0:
                v = G.call(graph, aten.sub.Tensor, v,
                          G.call(graph, aten.sum.dim_IntList, G.call(graph, aten.slice.Tensor, x, axis, 0, lo), [axis]))
            if hi < n - 1:
                v = G.call(graph, aten.sub.Tensor, v, G.call(
                    graph, aten.sum.dim_IntList, G.call(graph, aten.slice.Tensor, x, axis, hi + 1, n), [axis]))
        per_tap.append(G.call(graph, aten.unsqueeze.default, v, -1))
    return G.call(graph, aten.cat.default, per_tap, -1)


def _conv_reduction(red, axes):
    """(chain, conv, keep) where red is a sum or mean over exactly axes(nd)
    of a convolution's output, through multiplications, divisions,
    additions and subtractions by operands the same along those axes
    (chain: (op, operand), outermost first), each intermediate of that one
    use; None where not."""
    import torch

    aten = torch.ops.aten
    if red.op != "call_function" or red.target not in (aten.sum.dim_IntList, aten.mean.dim):
        return None
    y0 = red.args[0]
    dims = red.args[1] if len(red.args) > 1 else None
    if not isinstance(y0, torch.fx.Node) or "val" not in y0.meta or red.kwargs.get("dtype") is not None \
            or not isinstance(dims, (list, tuple)) or "val" not in red.meta:
        return None
    nd = y0.meta["val"].dim()
    if nd < 3 or sorted(int(a) % nd for a in dims) != axes(nd):
        return None
    keep = bool(red.args[2]) if len(red.args) > 2 else bool(red.kwargs.get("keepdim", False))
    chain, node = [], y0
    while isinstance(node, torch.fx.Node) and node.op == "call_function" and len(node.users) == 1 and \
            node.target in (aten.mul.Tensor, aten.div.Tensor, aten.add.Tensor, aten.sub.Tensor) and \
            len(node.args) == 2 and not node.kwargs and isinstance(node.args[0], torch.fx.Node) and \
            _operand_over(node.args[1], node.args[0], axes(nd)):
        chain.append((node.target, node.args[1]))
        node = node.args[0]
    if not isinstance(node, torch.fx.Node) or node.target != aten.convolution.default or len(node.users) != 1 \
            or len(node.args) < 9 or "val" not in node.meta:
        return None
    return chain, node, keep


def _conv_reduction_done(graph, red, v, chain, count: int, keep: bool):
    """The folded value v (red's reduction of the convolution alone, with
    keepdim's shape) through chain, an added operand count times where red
    sums over count elements, then in red's shape; red's uses to it."""
    import torch

    aten = torch.ops.aten
    for op, o in reversed(chain):
        if red.target != aten.mean.dim and op in (aten.add.Tensor, aten.sub.Tensor):
            o = o * count if not isinstance(o, torch.fx.Node) else G.call(graph, aten.mul.Tensor, o, count)
        v = G.call(graph, op, v, o)
    shape = [int(e) for e in red.meta["val"].shape]
    if not keep or "val" not in v.meta or [int(e) for e in v.meta["val"].shape] != shape:
        v = G.call(graph, aten.view.default, v, shape)
    red.replace_all_uses_with(v)


def fold_conv_transpose_means(graph) -> int:
    """An FX pass over an ATen graph: the mean (or sum) over every spatial
    axis of a transposed convolution, through operands the same over those
    axes (numbers, per-channel tensors: a bias, a scale, a batch norm's
    inference form), as the input summed over its spatial axes times the
    weights summed over their taps:
        sum_o y[b, co, o] = sum_ci (sum_i x[b, ci, i]) (sum_t w[ci, co, t]) + L_out b[co],
    since without padding every input element meets every tap once inside
    the output (output_padding only adds positions no tap reaches). With
    padding the output is cropped, and each tap meets the input indices
    whose product lands inside it: per tap the input summed over those
    (_tap_sums: the whole axis less a few edge rows), times that tap's
    weights. One reduction of the input and a small product in place of
    the convolution. Only where each intermediate has that one use.
    Returns how many it folded."""
    import torch

    aten = torch.ops.aten
    folded = 0
    for red in list(graph.nodes):
        found = _conv_reduction(red, lambda nd: list(range(2, nd)))
        if found is None or found[1].args[6] is not True:
            continue  # over every spatial axis of a transposed convolution
        chain, conv, keep = found
        nd = conv.meta["val"].dim()
        x, w, b, stride, padding, dilation, _, output_padding, groups = conv.args[:9]
        if not isinstance(x, torch.fx.Node) or not isinstance(w, torch.fx.Node):
            continue
        xv, wv, yv = x.meta.get("val"), w.meta.get("val"), conv.meta["val"]
        if xv is None or wv is None or xv.dim() != nd or wv.dim() != nd:
            continue
        B, cin, cout, g = int(xv.shape[0]), int(xv.shape[1]), int(yv.shape[1]), int(groups)
        space = list(range(2, nd))
        positions = math.prod(int(e) for e in yv.shape[2:])
        pads = [int(e) for e in padding]
        with graph.inserting_before(red):
            if not any(pads):
                # every input element meets every tap once inside the output:
                # the input summed [B, Cin] times the taps summed [Cin, Cout/g]
                xs = G.call(graph, aten.sum.dim_IntList, x, space)
                ws = G.call(graph, aten.sum.dim_IntList, w, space)
                xs = G.call(graph, aten.view.default, xs, [B, g, cin // g, 1])
                ws = G.call(graph, aten.view.default, ws, [1, g, cin // g, cout // g])
                v = G.call(graph, aten.mul.Tensor, xs, ws)
            else:
                # with padding the output is cropped: per tap, the input
                # indices whose products land inside it, summed axis by
                # axis (the whole axis less its thin edges), [B, Cin, k1..kN],
                # times that tap's weights [Cin, Cout/g, k1..kN]
                xs = x
                for a in range(2, nd):  # each axis in turn comes to position 2, its taps go last
                    xs = _tap_sums(graph, xs, 2, int(xv.shape[a]), int(wv.shape[a]), int(stride[a - 2]),
                                   pads[a - 2], int(dilation[a - 2]), int(yv.shape[a]))
                taps = math.prod(int(e) for e in wv.shape[2:])
                xs = G.call(graph, aten.view.default, xs, [B, g, cin // g, 1, taps])
                ws = G.call(graph, aten.view.default, w, [1, g, cin // g, cout // g, taps])
                v = G.call(graph, aten.sum.dim_IntList, G.call(graph, aten.mul.Tensor, xs, ws), [4])
            v = G.call(graph, aten.sum.dim_IntList, v, [2])  # [B, g, Cout/g]
            v = G.call(graph, aten.view.default, v, [B, cout] + [1] * (nd - 2))
            if red.target == aten.mean.dim:
                v = G.call(graph, aten.div.Tensor, v, positions)
            if isinstance(b, torch.fx.Node):
                bb = G.call(graph, aten.view.default, b, [cout] + [1] * (nd - 2))
                v = G.call(graph, aten.add.Tensor, v, bb if red.target == aten.mean.dim else
                          G.call(graph, aten.mul.Tensor, bb, positions))
            _conv_reduction_done(graph, red, v, chain, positions, keep)
        folded += 1
    if folded:
        graph.eliminate_dead_code()
    return folded


def fold_conv_channel_sums(graph) -> int:
    """An FX pass over an ATen graph: the sum (or mean) over the channels of
    a convolution, forward or transposed, through operands the same over
    the channels (numbers, tensors of one channel), as the convolution with
    its output channels' weights summed first:
        sum_co conv(x, w)[b, co] = conv(x, sum_co w[co])[b] + sum_co b[co],
    one output channel per group in place of C_out / groups (a forward
    convolution's weights [C_out, C_in/g, *k] summed within each group, a
    transposed one's [C_in, C_out/g, *k] over their second axis; the groups'
    outputs then summed). Only where each intermediate has that one use.
    Returns how many it folded."""
    import torch

    aten = torch.ops.aten
    folded = 0
    for red in list(graph.nodes):
        found = _conv_reduction(red, lambda nd: [1])
        if found is None:
            continue  # over the channels alone
        chain, conv, keep = found
        nd = conv.meta["val"].dim()
        x, w, b, stride, padding, dilation, transposed, output_padding, groups = conv.args[:9]
        wv, yv = w.meta.get("val") if isinstance(w, torch.fx.Node) else None, conv.meta["val"]
        if wv is None or not isinstance(x, torch.fx.Node) or wv.dim() != nd:
            continue
        g, cout = int(groups), int(yv.shape[1])
        k = [int(e) for e in wv.shape[2:]]
        with graph.inserting_before(red):
            if transposed:  # [C_in, C_out/g, *k]: one output channel per group
                ws = G.call(graph, aten.sum.dim_IntList, w, [1], True)
            else:  # [C_out, C_in/g, *k], the output channels group by group
                cin_g = int(wv.shape[1])
                ws = G.call(graph, aten.view.default, w, [g, cout // g, cin_g] + k)
                ws = G.call(graph, aten.sum.dim_IntList, ws, [1])
            v = G.call(graph, aten.convolution.default, x, ws, None, stride, padding, dilation, transposed,
                      output_padding, groups)                                   # [B, g, *L]
            if g > 1:
                v = G.call(graph, aten.sum.dim_IntList, v, [1], True)
            if isinstance(b, torch.fx.Node):
                v = G.call(graph, aten.add.Tensor, v, G.call(graph, aten.sum.default, b))
            if red.target == aten.mean.dim:
                v = G.call(graph, aten.div.Tensor, v, cout)
            _conv_reduction_done(graph, red, v, chain, cout, keep)
        folded += 1
    if folded:
        graph.eliminate_dead_code()
    return folded


def fold_linear_ops(graph) -> int:
    """The linear-reduction fold's passes: a reduction over a matrix
    product's features, a mean over a transposed convolution's spatial
    axes, a sum over a convolution's channels."""
    return fold_linear_reductions(graph) + fold_conv_transpose_means(graph) + fold_conv_channel_sums(graph)
