"""koptmake's attention rewrite: an FX pass on the post-grad graph
(rewrites.py runs it before Inductor's own passes there).

- flash_attention: a softmax over the last axis of a batched product's
  scores (through numbers and views), taken by a second batched product
  as its left operand (attention: nn.MultiheadAttention, the scaled dot
  product written out), as kopt::attention (attention.py): one Triton
  kernel with the online softmax, the scores never written. Inductor
  writes them (B x M x N floats) and reads them back twice; its own
  attention patterns take float32 only with TF32 on, which strict
  precision forbids. Float32; a -inf mask the same over batches and heads
  (causal) goes into the kernel. An FX pass on the post-grad graph.
"""

from __future__ import annotations

from . import attention
from . import rewrite_graph as G


def _softmax_core(div):
    """x where div is the last node of a softmax over
    x's last axis as torch decomposes it (amax, sub, exp, sum with keepdim,
    div), each node used only inside it and x only by it; or where div is
    aten._softmax over the last axis; else None"""
    import torch

    aten = torch.ops.aten
    last = lambda n, d: isinstance(d, (list, tuple)) and len(d) == 1 and \
        "val" in n.meta and int(d[0]) % n.meta["val"].dim() == n.meta["val"].dim() - 1
    if div.target == aten._softmax.default and len(div.args) == 3 and not div.args[2] and \
            isinstance(div.args[0], torch.fx.Node) and last(div.args[0], [div.args[1]]):
        return div.args[0]
    if div.target != aten.div.Tensor or len(div.args) != 2:
        return None
    exp, total = div.args
    if not (isinstance(exp, torch.fx.Node) and isinstance(total, torch.fx.Node)) or \
            exp.target != aten.exp.default or total.target != aten.sum.dim_IntList or total.args[0] is not exp or \
            len(total.args) < 3 or not total.args[2] or not last(exp, total.args[1]) or set(exp.users) != {total, div} \
            or len(total.users) != 1:
        return None
    sub = exp.args[0]
    if not isinstance(sub, torch.fx.Node) or sub.target != aten.sub.Tensor or len(sub.users) != 1:
        return None
    x, amax = sub.args
    if not (isinstance(x, torch.fx.Node) and isinstance(amax, torch.fx.Node)) or amax.target != aten.amax.default or \
            amax.args[0] is not x or len(amax.args) < 3 or not amax.args[2] or not last(x, amax.args[1]) or \
            set(x.users) != {amax, sub} or len(amax.users) != 1:
        return None
    return x


def _attention_mask(node):
    """(cond, scores, keep) where node masks scores with -inf: a
    masked_fill(scores, cond, -inf) (keep False: True leaves a score out),
    or where(cond, -inf, scores) (False) or where(cond, scores, -inf)
    (True: True keeps it), the -inf a number or a 0-d tensor made of one;
    else None"""
    import torch

    aten = torch.ops.aten
    copies = {aten.lift_fresh_copy.default, aten.detach.default, aten.clone.default, aten._to_copy.default}

    def ninf(a) -> bool:
        if G.number(a):
            return a == float("-inf")
        # through copies to a constant the graph holds (a torch.tensor)
        while isinstance(a, torch.fx.Node) and a.op == "call_function" and a.target in copies and a.args:
            a = a.args[0]
        if isinstance(a, torch.fx.Node) and a.op == "call_function":
            if a.target == aten.full.default and list(a.args[0]) == []:
                return ninf(a.args[1])
            if a.target == aten.scalar_tensor.default:
                return ninf(a.args[0])
        if isinstance(a, torch.fx.Node) and a.op == "get_attr":
            t = getattr(a.graph.owning_module, a.target, None) if a.graph.owning_module is not None else None
            return isinstance(t, torch.Tensor) and t.numel() == 1 and t.is_floating_point() and \
                float(t.reshape(())) == float("-inf")
        return False

    if not isinstance(node, torch.fx.Node) or node.op != "call_function":
        return None
    a = node.args
    if node.target in (aten.masked_fill.Scalar, aten.masked_fill.Tensor) and len(a) == 3 and \
            isinstance(a[0], torch.fx.Node) and isinstance(a[1], torch.fx.Node) and ninf(a[2]):
        return a[1], a[0], False
    if node.target in (aten.where.self, aten.where.ScalarOther, aten.where.ScalarSelf) and len(a) == 3 and \
            isinstance(a[0], torch.fx.Node):
        if ninf(a[1]) and isinstance(a[2], torch.fx.Node):
            return a[0], a[2], False
        if ninf(a[2]) and isinstance(a[1], torch.fx.Node):
            return a[0], a[1], True
    return None


def fuse_attention(graph) -> int:
    """An FX pass over an ATen graph: a softmax over the last axis of a
    batched product's scores (through multiplications and divisions by
    numbers and views), whose result goes through views into a batched
    product as its left operand,
        bmm(softmax(bmm(q, kt) * c, -1), v),
    as kopt::attention(q, kt, v, c) (attention.py): one kernel, the scores
    never written. Multi-head attention (nn.MultiheadAttention, the
    scaled dot product written out, 3-D or 4-D) traces to this: views
    regroup the heads and the batch around the same [B, M, N] scores. Only
    in float32 (Inductor's own attention patterns take half precision, and
    float32 only with TF32 on), with heads of at most attention.MAX_HEAD,
    each intermediate used once. A mask of -inf before the softmax
    (masked_fill, where: a causal mask, say) goes with it where it is the
    same for every batch and head. Returns how many."""
    import torch

    aten = torch.ops.aten
    views = G.views()
    fused = 0
    for div in list(graph.nodes):
        if div.op != "call_function":
            continue
        x = _softmax_core(div)
        if x is None:
            continue
        # back from the scores to their product: numbers and views, and at
        # most one mask (-inf where it says)
        scale, node, masked = 1.0, x, None
        while isinstance(node, torch.fx.Node) and node.op == "call_function" and node.target != aten.bmm.default \
                and (node is x or len(node.users) == 1):
            if node.target == aten.mul.Tensor and G.number(node.args[1]):
                scale *= node.args[1]
            elif node.target == aten.div.Tensor and G.number(node.args[1]) and node.args[1] != 0:
                scale /= node.args[1]
            elif masked is None and (found := _attention_mask(node)) is not None:
                if scale < 0:
                    break  # a negative number after the mask makes its -inf +inf: not the kernel's order
                masked = (node,) + found
                node = masked[2]
                continue
            elif node.target not in views:
                break
            node = node.args[0]
        scores = node
        if not isinstance(scores, torch.fx.Node) or scores.target != aten.bmm.default or len(scores.users) != 1 \
                and scores is not x:
            continue
        # on from the probabilities to the product that takes them: views,
        # an expand or a copy that keeps their shape
        node = div
        while len(node.users) == 1:
            user = next(iter(node.users))
            if user.target == aten.bmm.default and user.args[0] is node:
                break
            same = "val" in user.meta and "val" in node.meta and \
                list(user.meta["val"].shape) == list(node.meta["val"].shape)
            if user.target in views or user.target in (aten.expand.default, aten.clone.default) and same:
                node = user
                continue
            break
        users = list(node.users)
        if len(users) != 1 or users[0].target != aten.bmm.default or users[0].args[0] is not node:
            continue
        out = users[0]
        q, kt = scores.args[0], scores.args[1]
        v = out.args[1]
        vals = [a.meta.get("val") if isinstance(a, torch.fx.Node) else None for a in (q, kt, v, scores, node)]
        if any(t is None for t in vals):
            continue
        qv, kv, vv, sv, pv = vals
        xv = x.meta.get("val")
        # the softmax's rows are the scores' rows: views between keep the
        # last axis (N), and the product takes the probabilities as [B, M, N]
        if xv is None or int(xv.shape[-1]) != int(sv.shape[-1]) or \
                any(t.dtype != torch.float32 for t in (qv, kv, vv)) or list(pv.shape) != list(sv.shape) or \
                int(qv.shape[2]) > attention.MAX_HEAD or int(vv.shape[2]) > attention.MAX_HEAD:
            continue
        mask_shape = None
        if masked is not None:
            # the mask the same for every batch and head (a causal one):
            # [1, M or 1, N or 1] beside the product's [B, M, N] scores,
            # where the masked scores' rows and columns are the product's
            where, cond, _, keep = masked
            wv, cv = where.meta.get("val"), cond.meta.get("val")
            if wv is None or cv is None or cv.dtype != torch.bool or cv.dim() > wv.dim() or \
                    list(wv.shape[-2:]) != list(sv.shape[-2:]) or \
                    any(int(e) != 1 for e in cv.shape[:-2]) or cv.dim() < 1:
                continue
            mask_shape = [1] + [int(e) for e in ([1] + list(cv.shape))[-2:]]
        with graph.inserting_before(out):
            mask = None
            if masked is not None:
                mask = G.call(graph, aten.view.default, cond, mask_shape) if list(cv.shape) != mask_shape else cond
                if keep:  # True where the score stays: the operator's mask is the other way
                    mask = G.call(graph, aten.logical_not.default, mask)
            new = G.call(graph, attention.op(), q, kt, v, float(scale), mask)
        out.replace_all_uses_with(new)
        fused += 1
    if fused:
        graph.eliminate_dead_code()
    return fused
