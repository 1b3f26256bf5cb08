"""koptmake's own rewrites of a model's ATen graph: implementation choices
that no Inductor option makes, given as variant options named ``kopt.NAME``
(``options = { "kopt.conv_transpose_as_conv" = true }`` in a spec; the
implementation-space search adds them like Inductor's options).

Each rewrite is a decomposition that Inductor applies while the variant is
compiled (and while kopt.backend compiles the deployment): it returns
NotImplemented where it does not apply, and the op stays as it was. A
variant with a rewrite is checked against eager and float64 and raced like
any variant, so a rewrite that is wrong or slower is never chosen.

- conv_transpose_as_conv: a transposed convolution as ordinary
  convolutions: its weights' two channel axes swapped within each group,
  and for each phase of the output (the positions o = q*stride + r along
  each axis) the taps that reach it, flipped, as a forward convolution of
  the input (zero-padded or cropped to the window it reads) whose results
  are interleaved; with stride 1, one forward convolution with the whole
  kernel. No multiplication by an inserted zero. cuDNN runs transposed
  convolutions as the data gradient of a convolution, and for 3-D ones it
  often has only a generic engine for that (the beyond benchmark's
  profiles, bench/beyond/README.md: 185 ms for a problem whose FLOPs take
  27 ms at the FP32 peak); the forward convolution has implicit-GEMM
  kernels, and Inductor's convolution templates.
- depthwise_as_pointwise: a depthwise convolution (groups = input
  channels, any channel multiplier, 1-3 D, at most 64 kernel elements) as
  the sum over the kernel's taps of the input's shifted window times that
  tap's weights: pointwise arithmetic that Inductor fuses into one kernel
  reading the input once (the taps hit the caches) and writing the output
  once. Under max-autotune a depthwise convolution ran as a transpose to
  channels-last, cuDNN's kernel and a transpose back, 3.3x its bytes'
  time at the copy bandwidth (bench/beyond/README.md).

- conv3d_as_conv2d: a 3-D convolution as 2-D ones, one per tap of its
  kernel's depth: the input's depth slices that tap reads, moved into the
  batch, convolved with that tap's 2-D weights, the results summed. cuDNN
  has implicit-GEMM kernels for 2-D convolutions in float32; for 3-D it
  ran its generic implicit_convolveNd_sgemm (bench/beyond/README.md).
- pool_as_pointwise: average and max pooling (2-D and 3-D; 1-D runs as
  2-D) as pointwise arithmetic over the same shifted windows: the sum
  over the taps divided by their count, or the running maximum with the
  first maximum's index (a NaN wins), as ATen's kernels give them. Where
  Inductor falls back to ATen's pooling kernel (3-D average pooling ran
  at 3.7x its bytes' time at the copy bandwidth, bench/beyond/README.md)
  this makes one fused kernel; where Inductor lowers the pooling itself
  the race says which is faster. An average over more than 64 taps is
  summed one axis at a time (k + k taps, not k * k). Not for ceil_mode,
  nor for an average without the padding in its count (its divisor
  changes at the borders).

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

- sliced_product: a matrix product (mm, addmm, bmm) of whose output a
  view reads only some rows (a select or slice of what an einsum made:
  Mamba's last chunk state) as the product of those rows alone, the view
  taken of the smaller output (aten.as_strided). Inductor computes the
  whole product and reads a part. An FX pass on the post-grad graph; the
  view's strides and offset, replayed on the meta device, say which rows.

- flash_attention: a softmax over the last axis of a batched product's
  scores (through numbers and views), taken by a second batched product
  as its left operand (attention: nn.MultiheadAttention, the scaled dot
  product written out), as kopt::attention (attention.py): one Triton
  kernel with the online softmax, the scores never written. Inductor
  writes them (B x M x N floats) and reads them back twice; its own
  attention patterns take float32 only with TF32 on, which strict
  precision forbids. Float32; a -inf mask the same over batches and heads
  (causal) goes into the kernel. An FX pass on the post-grad graph.

Rewrites of the same op, all on, are tried in NAMES' order, and what one
makes goes through the table again.
"""

from __future__ import annotations

import contextlib
import functools
import math
from typing import NamedTuple

PREFIX = "kopt."


def _out_len(size, k, s, p, d):
    """positions along an axis of a window k (stride s, padding p each
    side, dilation d) over size inputs"""
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _pad_both(x, p, value=0.0):
    """x padded by p[i] on both sides of each of its last len(p) axes"""
    import torch

    return torch.ops.aten.constant_pad_nd.default(x, [v for i in reversed(range(len(p))) for v in (p[i], p[i])],
                                                  value)


class _Phase(NamedTuple):
    """One axis of a transposed convolution's output positions o = q*s + r."""
    tap: int       # the first kernel tap that reaches them
    step: int      # between the taps that do
    taps: int      # how many do
    dilation: int  # input positions between consecutive taps: the forward convolution's dilation
    start: int     # the lowest input index they read (the last tap's)
    count: int     # how many such positions the output has

    @property
    def end(self) -> int:
        """the highest input index they read"""
        return self.start + self.count - 1 + (self.taps - 1) * self.dilation


def _phase(r, s, p, d, k, out_len):
    """The phase r of an axis (stride s, padding p, dilation d, kernel k,
    out_len outputs), or None where no tap reaches it or it has no position."""
    taps = [j for j in range(k) if (r + p - j * d) % s == 0]
    count = (out_len - r + s - 1) // s if r < out_len else 0
    if not taps or count == 0:
        return None
    step = taps[1] - taps[0] if len(taps) > 1 else 1
    return _Phase(taps[0], step, len(taps), step * d // s if len(taps) > 1 else 1, (r + p - taps[-1] * d) // s,
                  count)


def conv_transpose_as_conv(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    import itertools

    import torch

    aten = torch.ops.aten
    nd = weight.dim() - 2
    if not transposed or nd < 1:
        return NotImplemented
    s, p, d = [int(v) for v in stride], [int(v) for v in padding], [int(v) for v in dilation]
    op, k = [int(v) for v in output_padding], [int(v) for v in weight.shape[2:]]
    size = [int(v) for v in x.shape[2:]]
    out = [(size[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1 for i in range(nd)]
    if min(out) < 1:
        return NotImplemented
    cin, cout_g = int(weight.shape[0]), int(weight.shape[1])
    cout = groups * cout_g
    # a forward convolution's weights: the two channel axes swapped within each group
    w = weight.reshape(groups, cin // groups, cout_g, *k).transpose(1, 2).reshape(cout, cin // groups, *k)
    phases = math.prod(s)
    result = None
    for r in itertools.product(*(range(v) for v in s)):
        axes = [_phase(r[i], s[i], p[i], d[i], k[i], out[i]) for i in range(nd)]
        if any(a is None for a in axes):
            continue  # nothing reaches these positions: zero, then the bias
        if any(a.start > size[i] - 1 or a.end < 0 for i, a in enumerate(axes)):
            continue  # they read only padding: zero
        # the input window the phase reads, padded with zeros where it
        # reaches past the input (a negative padding crops), last axis first
        pads = [v for i in reversed(range(nd)) for v in (-axes[i].start, axes[i].end - (size[i] - 1))]
        ws = w
        for i, a in enumerate(axes):
            ws = aten.slice.Tensor(ws, 2 + i, a.tap, a.tap + (a.taps - 1) * a.step + 1, a.step)
        ws = aten.flip.default(ws, list(range(2, 2 + nd)))
        xs = x
        if all(pads[2 * j] == pads[2 * j + 1] >= 0 for j in range(nd)):
            conv_pad = [pads[2 * (nd - 1 - i)] for i in range(nd)]
        else:
            xs = aten.constant_pad_nd.default(xs, pads, 0.0)
            conv_pad = [0] * nd
        y = aten.convolution.default(xs, ws, bias if phases == 1 else None, [1] * nd, conv_pad,
                                     [a.dilation for a in axes], False, [0] * nd, groups)
        if phases == 1:
            return y
        if result is None:
            result = aten.new_zeros.default(x, [int(x.shape[0]), cout] + out)
        result = _place(result, y, r, s, 2)
    if result is None:
        result = aten.new_zeros.default(x, [int(x.shape[0]), cout] + out)
    if bias is not None:
        result = aten.add.Tensor(result, aten.reshape.default(bias, [1, cout] + [1] * nd))
    return result


def conv3d_as_conv2d(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    import torch

    aten = torch.ops.aten
    if transposed or weight.dim() != 5:
        return NotImplemented
    s, p, d = [int(v) for v in stride], [int(v) for v in padding], [int(v) for v in dilation]
    n, c, depth = int(x.shape[0]), int(x.shape[1]), int(x.shape[2])
    kd, cout = int(weight.shape[2]), int(weight.shape[0])
    dout = _out_len(depth, kd, s[0], p[0], d[0])
    if dout < 1:
        return NotImplemented
    if p[0]:
        x = _pad_both(x, [p[0], 0, 0])
    # depth next to the batch, once: each tap's slices are then a batch of 2-D images
    xd = aten.permute.default(x, [0, 2, 1, 3, 4])
    acc = None
    for t in range(kd):
        xt = aten.slice.Tensor(xd, 1, t * d[0], t * d[0] + (dout - 1) * s[0] + 1, s[0])
        xt = aten.reshape.default(aten.clone.default(xt, memory_format=torch.contiguous_format),
                                  [n * dout, c] + [int(v) for v in x.shape[3:]])
        wt = aten.select.int(weight, 2, t)
        y = aten.convolution.default(xt, wt, None, s[1:], p[1:], d[1:], False, [0, 0], groups)
        acc = y if acc is None else aten.add.Tensor(acc, y)
    ho, wo = int(acc.shape[2]), int(acc.shape[3])
    out = aten.permute.default(aten.reshape.default(acc, [n, dout, cout, ho, wo]), [0, 2, 1, 3, 4])
    if bias is not None:
        out = aten.add.Tensor(out, aten.reshape.default(bias, [1, cout, 1, 1, 1]))
    return aten.clone.default(out, memory_format=torch.contiguous_format)


def _place(base, y, r, s, dim):
    """base with y written at positions r[i] + j*s[i] of its axes dim, dim+1, ..."""
    import torch

    aten = torch.ops.aten
    if not r:
        return y
    length = int(base.shape[dim])
    sub = aten.slice.Tensor(base, dim, r[0], length, s[0])
    return aten.slice_scatter.default(base, _place(sub, y, r[1:], s[1:], dim + 1), dim, r[0], length, s[0])


DEPTHWISE_MAX_TAPS = 64  # kernel elements at most: each is one load of the fused kernel


def depthwise_as_pointwise(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    import torch

    aten = torch.ops.aten
    nd = weight.dim() - 2
    cin = int(x.shape[1])
    if transposed or nd < 1 or groups != cin or groups == 1 or int(weight.shape[1]) != 1:
        return NotImplemented
    cout = int(weight.shape[0])
    k = [int(v) for v in weight.shape[2:]]
    if cout % cin or math.prod(k) > DEPTHWISE_MAX_TAPS:
        return NotImplemented
    s, d, p = [int(v) for v in stride], [int(v) for v in dilation], [int(v) for v in padding]
    size = [int(v) for v in x.shape[2:]]
    out = [_out_len(size[i], k[i], s[i], p[i], d[i]) for i in range(nd)]
    if min(out) < 1:
        return NotImplemented
    mult = cout // cin
    if mult > 1:  # output channel c * mult + j reads input channel c (a static shape, unlike repeat_interleave)
        n = int(x.shape[0])
        x = aten.unsqueeze.default(x, 2)
        x = aten.expand.default(x, [n, cin, mult] + size)
        x = aten.reshape.default(x, [n, cin * mult] + size)
    if any(p):
        x = _pad_both(x, p)
    acc = None
    for tap, win in _windows(x, k, s, d, out):
        w = aten.reshape.default(weight[(slice(None), 0) + tap], [1, cout] + [1] * nd)
        term = aten.mul.Tensor(win, w)
        acc = term if acc is None else aten.add.Tensor(acc, term)
    if bias is not None:
        acc = aten.add.Tensor(acc, aten.reshape.default(bias, [1, cout] + [1] * nd))
    return acc


def _windows(x, k, s, d, out):
    """(tap, the input's window for it) for each tap of a kernel k over the
    last len(k) axes of x (already padded), stride s, dilation d, out
    positions per axis: x's shifted, strided views."""
    import itertools

    import torch

    aten = torch.ops.aten
    nd = len(k)
    lead = x.dim() - nd
    for tap in itertools.product(*(range(v) for v in k)):
        win = x
        for i, t in enumerate(tap):
            start = t * d[i]
            win = aten.slice.Tensor(win, lead + i, start, start + (out[i] - 1) * s[i] + 1, s[i])
        yield tap, win


def _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, nd, per_axis=False):
    """(k, s, p, d, out) of a pooling over x's last nd axes in ATen's
    conventions (an empty stride is the kernel; one number is every axis),
    or None where it is not a plain window (ceil_mode, too many taps: in
    all, or per_axis, on one axis)."""
    def each(v, default):
        if isinstance(v, int):
            v = [v]
        v = [int(e) for e in (v if v else default)]
        return v * nd if len(v) == 1 else v
    k = each(kernel_size, [1])
    s, p, d = each(stride, k), each(padding, [0]), each(dilation, [1])
    if ceil_mode or len(k) != nd:
        return None
    size = [int(v) for v in x.shape[x.dim() - nd:]]
    out = [_out_len(size[i], k[i], s[i], p[i], d[i]) for i in range(nd)]
    if (max(k) if per_axis else math.prod(k)) > DEPTHWISE_MAX_TAPS or min(out) < 1:
        return None
    return k, s, p, d, out


def _avg_pool(nd):
    def avg_pool_as_pointwise(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                              divisor_override=None):
        import torch

        aten = torch.ops.aten
        g = _pool_geometry(x, kernel_size, stride, padding, [1], ceil_mode, nd, per_axis=True)
        if g is None or (not count_include_pad and any(g[2])):
            return NotImplemented  # a divisor that changes with the position at the borders
        k, s, p, d, out = g
        if any(p):
            x = _pad_both(x, p)
        taps = math.prod(k)
        if taps <= DEPTHWISE_MAX_TAPS:
            passes = [(k, s, out)]
        else:  # a sum is separable: one axis at a time, k[0] + k[1] + ... taps, not their product
            cur = [int(v) for v in x.shape[x.dim() - nd:]]
            passes = []
            for i in range(nd):
                kk, ss = [1] * nd, [1] * nd
                kk[i], ss[i] = k[i], s[i]
                cur = cur[:i] + [out[i]] + cur[i + 1:]
                passes.append((kk, ss, list(cur)))
        acc = x
        for kk, ss, oo in passes:
            part = None
            for _, win in _windows(acc, kk, ss, d, oo):
                part = win if part is None else aten.add.Tensor(part, win)
            acc = part
        return aten.div.Tensor(acc, float(divisor_override or taps))
    return avg_pool_as_pointwise


def _max_pool(nd):
    def max_pool_as_pointwise(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        """(values, indices) as max_pool*_with_indices gives them: the first
        maximum in the window's scan order (a NaN wins, the last one),
        indices into the unpadded input's flattened spatial axes."""
        import torch

        aten = torch.ops.aten
        g = _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, nd)
        if g is None or not x.dtype.is_floating_point:
            return NotImplemented
        k, s, p, d, out = g
        size = [int(v) for v in x.shape[x.dim() - nd:]]
        if any(p):
            x = _pad_both(x, p, float("-inf"))
        # each output position's first input coordinate, per axis, broadcast
        base = []
        for i in range(nd):
            shape = [1] * (x.dim() - nd) + [1] * nd
            shape[x.dim() - nd + i] = out[i]
            base.append(aten.reshape.default(aten.mul.Tensor(aten.arange.default(out[i], dtype=torch.int64,
                                                                                device=x.device), s[i]), shape))
        best = idx = None
        for tap, win in _windows(x, k, s, d, out):
            flat = None  # the tap's index into the unpadded input, row-major over the spatial axes
            for i in range(nd):
                coord = aten.add.Tensor(base[i], tap[i] * d[i] - p[i])
                flat = coord if flat is None else aten.add.Tensor(aten.mul.Tensor(flat, size[i]), coord)
            if best is None:
                best, idx = win, aten.expand.default(flat, list(win.shape))
                continue
            # ATen's rule: a greater value or a NaN takes the place (so the last NaN's index)
            take = aten.logical_or.default(aten.gt.Tensor(win, best), aten.isnan.default(win))
            best = aten.where.self(take, win, best)
            idx = aten.where.self(take, flat, idx)
        return best, idx
    return max_pool_as_pointwise


def _fake_call(op, *args):
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


def _call(graph, op, *args):
    node = graph.call_function(op, tuple(args))
    val = _fake_call(op, *args)
    if val is not None:
        node.meta["val"] = val
    return node


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
    views = _views()
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
            if node.target in (aten.mul.Tensor, aten.div.Tensor) and _number(node.args[1]):
                chain.append((node.target, node.args[1], "as is"))
            elif node.target in (aten.add.Tensor, aten.sub.Tensor) and len(node.args) == 2 and not node.kwargs \
                    and _feature_bias(node.args[1], node):
                chain.append((node.target, node.args[1], "its sum"))  # a bias added after the product: its sum
            elif node.target in (aten.add.Tensor, aten.sub.Tensor) and len(node.args) == 2 and not node.kwargs \
                    and _number(node.args[1]) and "val" in node.meta:
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
            ws = _call(graph, aten.sum.dim_IntList, w, [d - 1])  # [K], or [B, K] for bmm
            if d == 3:
                ws = _call(graph, aten.view.default, ws, [int(wv.shape[0]), 1, int(wv.shape[1])])
            v = _call(graph, aten.sum.dim_IntList, _call(graph, aten.mul.Tensor, x, ws), [d - 1])
            if bias is not None:
                v = _call(graph, aten.add.Tensor, v, _call(graph, aten.sum.default, bias))
            for op, c, how in reversed(chain):
                v = _call(graph, op, v, _call(graph, aten.sum.default, c) if how == "its sum" else c)
            if red.target == aten.mean.dim:
                v = _call(graph, aten.div.Tensor, v, n)
            shape = [int(e) for e in out.shape]
            if shape != [int(e) for e in xv.shape[:-1]]:  # the reduction's own shape (views, keepdim):
                # a view (post-grad graphs hold no reshape) of the contiguous sum made
                v = _call(graph, aten.view.default, v, shape)
        red.replace_all_uses_with(v)
        folded += 1
    if folded:
        graph.eliminate_dead_code()
    return folded


def _views() -> set:
    """the ATen ops that only view their input in another shape"""
    import torch

    aten = torch.ops.aten
    views = {aten.view.default, aten._unsafe_view.default, aten.reshape.default}
    if hasattr(aten, "_reshape_alias"):  # a reshape as older make_fx traces it (a view with its strides)
        views.add(aten._reshape_alias.default)
    return views


def _number(a) -> bool:
    return isinstance(a, (int, float)) and not isinstance(a, bool)


def constant_over(shape, ndim: int, axes) -> bool:
    """whether a tensor of shape, broadcast beside one of ndim axes, is the
    same along each of axes (the other's numbering): of size 1, or absent,
    on each (graph_facts asks it of eager tensors, the folds of fake ones)"""
    aligned = [1] * (ndim - len(shape)) + [int(e) for e in shape]
    return len(shape) <= ndim and all(aligned[a] == 1 for a in axes)


def _operand_over(o, y, axes) -> bool:
    """whether operand o beside y [B, C, *L] is the same along axes (y's
    numbering): a number, or a node whose value is (a bias [C, 1, 1] or a
    batch norm's unsqueezed parameters along the spatial axes, a tensor of
    one channel along the channels); a reduction over axes then takes it
    as it takes a number"""
    import torch

    if _number(o):
        return True
    if not isinstance(o, torch.fx.Node) or "val" not in o.meta or "val" not in y.meta:
        return False
    return constant_over(o.meta["val"].shape, y.meta["val"].dim(), axes)


def _tap_sums(graph, x, axis: int, n: int, k: int, s: int, p: int, d: int, out_len: int):
    """x summed over axis, once per tap t of a transposed convolution's
    kernel along it: over the input indices i whose product lands inside
    the cropped output (p <= i*s + t*d < out_len + p), each as the whole
    axis less the indices before and after that range (a few rows: the
    padding's reach), the k sums on a new last axis."""
    import torch

    aten = torch.ops.aten
    whole = _call(graph, aten.sum.dim_IntList, x, [axis])
    per_tap = []
    for t in range(k):
        lo = max(0, -((t * d - p) // s))                 # ceil((p - t*d) / s)
        hi = min(n - 1, (out_len + p - 1 - t * d) // s)
        if lo > hi:
            v = _call(graph, aten.mul.Tensor, whole, 0.0)
        else:
            v = whole
            if lo > 0:
                v = _call(graph, aten.sub.Tensor, v,
                          _call(graph, aten.sum.dim_IntList, _call(graph, aten.slice.Tensor, x, axis, 0, lo), [axis]))
            if hi < n - 1:
                v = _call(graph, aten.sub.Tensor, v, _call(
                    graph, aten.sum.dim_IntList, _call(graph, aten.slice.Tensor, x, axis, hi + 1, n), [axis]))
        per_tap.append(_call(graph, aten.unsqueeze.default, v, -1))
    return _call(graph, aten.cat.default, per_tap, -1)


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
            o = o * count if not isinstance(o, torch.fx.Node) else _call(graph, aten.mul.Tensor, o, count)
        v = _call(graph, op, v, o)
    shape = [int(e) for e in red.meta["val"].shape]
    if not keep or "val" not in v.meta or [int(e) for e in v.meta["val"].shape] != shape:
        v = _call(graph, aten.view.default, v, shape)
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
                xs = _call(graph, aten.sum.dim_IntList, x, space)
                ws = _call(graph, aten.sum.dim_IntList, w, space)
                xs = _call(graph, aten.view.default, xs, [B, g, cin // g, 1])
                ws = _call(graph, aten.view.default, ws, [1, g, cin // g, cout // g])
                v = _call(graph, aten.mul.Tensor, xs, ws)
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
                xs = _call(graph, aten.view.default, xs, [B, g, cin // g, 1, taps])
                ws = _call(graph, aten.view.default, w, [1, g, cin // g, cout // g, taps])
                v = _call(graph, aten.sum.dim_IntList, _call(graph, aten.mul.Tensor, xs, ws), [4])
            v = _call(graph, aten.sum.dim_IntList, v, [2])  # [B, g, Cout/g]
            v = _call(graph, aten.view.default, v, [B, cout] + [1] * (nd - 2))
            if red.target == aten.mean.dim:
                v = _call(graph, aten.div.Tensor, v, positions)
            if isinstance(b, torch.fx.Node):
                bb = _call(graph, aten.view.default, b, [cout] + [1] * (nd - 2))
                v = _call(graph, aten.add.Tensor, v, bb if red.target == aten.mean.dim else
                          _call(graph, aten.mul.Tensor, bb, positions))
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
                ws = _call(graph, aten.sum.dim_IntList, w, [1], True)
            else:  # [C_out, C_in/g, *k], the output channels group by group
                cin_g = int(wv.shape[1])
                ws = _call(graph, aten.view.default, w, [g, cout // g, cin_g] + k)
                ws = _call(graph, aten.sum.dim_IntList, ws, [1])
            v = _call(graph, aten.convolution.default, x, ws, None, stride, padding, dilation, transposed,
                      output_padding, groups)                                   # [B, g, *L]
            if g > 1:
                v = _call(graph, aten.sum.dim_IntList, v, [1], True)
            if isinstance(b, torch.fx.Node):
                v = _call(graph, aten.add.Tensor, v, _call(graph, aten.sum.default, b))
            if red.target == aten.mean.dim:
                v = _call(graph, aten.div.Tensor, v, cout)
            _conv_reduction_done(graph, red, v, chain, cout, keep)
        folded += 1
    if folded:
        graph.eliminate_dead_code()
    return folded


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
        if _number(a):
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

    from . import attention

    aten = torch.ops.aten
    views = _views()
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
            if node.target == aten.mul.Tensor and _number(node.args[1]):
                scale *= node.args[1]
            elif node.target == aten.div.Tensor and _number(node.args[1]) and node.args[1] != 0:
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
                mask = _call(graph, aten.view.default, cond, mask_shape) if list(cv.shape) != mask_shape else cond
                if keep:  # True where the score stays: the operator's mask is the other way
                    mask = _call(graph, aten.logical_not.default, mask)
            new = _call(graph, attention.op(), q, kt, v, float(scale), mask)
        out.replace_all_uses_with(new)
        fused += 1
    if fused:
        graph.eliminate_dead_code()
    return fused


def _view_ops() -> set:
    """the ATen ops that make a view of their first operand (other operands
    constants): what a product's output may go through before the part of
    it that is read"""
    import torch

    aten = torch.ops.aten
    ops = set(_views()) | {aten.permute.default, aten.transpose.int, aten.t.default, aten.unsqueeze.default,
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
                a = _call(graph, aten.slice.Tensor, a, rowdim, *rows)
            if cols != (0, shape[-1], 1):
                b = _call(graph, aten.slice.Tensor, b, rowdim + 1, *cols)
                if bias is not None:  # the bias's features: those columns
                    bias = _call(graph, aten.slice.Tensor, bias, bias.meta["val"].dim() - 1, *cols)
            small = _call(graph, prod.target, *((a, b) if bias is None else (bias, a, b)))
            view = _call(graph, aten.as_strided.default, small, vshape, vstrides, voff)
        last.replace_all_uses_with(view)
        shrunk += 1
    if shrunk:
        graph.eliminate_dead_code()
    return shrunk


def fold_linear_ops(graph) -> int:
    """The linear-reduction fold's passes: a reduction over a matrix
    product's features, a mean over a transposed convolution's spatial
    axes, a sum over a convolution's channels."""
    return fold_linear_reductions(graph) + fold_conv_transpose_means(graph) + fold_conv_channel_sums(graph)


# the FX passes among the rewrites, by name: run on the post-grad graph
# before Inductor's own passes there (config.post_grad_custom_pre_pass),
# which may split an addmm
GRAPH_PASSES = {"linear_reduction_fold": fold_linear_ops, "sliced_product": slice_products,
                "flash_attention": fuse_attention}


def _table():
    import torch

    aten = torch.ops.aten
    conv = aten.convolution.default
    pools = {}
    for nd, name in ((2, "avg_pool2d"), (3, "avg_pool3d")):
        if hasattr(aten, name):
            pools[getattr(aten, name).default] = _avg_pool(nd)
    for nd, name in ((2, "max_pool2d_with_indices"), (3, "max_pool3d_with_indices")):
        if hasattr(aten, name):
            pools[getattr(aten, name).default] = _max_pool(nd)
    return {"conv_transpose_as_conv": {conv: conv_transpose_as_conv},
            "depthwise_as_pointwise": {conv: depthwise_as_pointwise},
            "conv3d_as_conv2d": {conv: conv3d_as_conv2d},
            "pool_as_pointwise": pools}


# in the order they are tried on one op: a transposed convolution's
# forward ones go through the table again, so a 3-D one can become 2-D;
# then the graph passes
NAMES = ("conv_transpose_as_conv", "depthwise_as_pointwise", "conv3d_as_conv2d", "pool_as_pointwise",
         "linear_reduction_fold", "sliced_product", "flash_attention")


def split(options: dict) -> tuple[dict, dict]:
    """(Inductor's options, the rewrites turned on by name) from a variant's
    options; an unknown kopt.NAME is an error that names it."""
    inductor = {k: v for k, v in options.items() if not k.startswith(PREFIX)}
    own = {k[len(PREFIX):]: v for k, v in options.items() if k.startswith(PREFIX)}
    unknown = sorted(k for k in own if k not in NAMES)
    if unknown:
        raise ValueError("unknown koptmake rewrite(s) " + ", ".join(PREFIX + k for k in unknown) +
                         " (known: " + ", ".join(PREFIX + k for k in NAMES) + ")")
    return inductor, {k: v for k, v in own.items() if v}


@functools.lru_cache(maxsize=1)
def _source_hash() -> str:
    """this file's hash: the graph passes' code, in their cache key (read
    once a process: each compile asks the pass's uuid)"""
    import hashlib

    with open(__file__, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _graph_pass(before, passes, names=()):
    """(Inductor's post-grad custom pass: the one set before (a user's), then
    ours, on the graph; whether Inductor's graph cache keys on it). Where
    torch has CustomGraphPass, the pass is one, its uuid the rewrites'
    names, this file's hash and the pass before's uuid, so that the cache
    keys on what it does; a pass before that has no uuid makes it None,
    and Inductor then compiles without the cache. Without the class the
    pass is a plain function and the cache must be off."""
    def run(graph):
        if before is not None:
            before(graph)
        for p in passes:
            p(graph)
    try:
        from torch._inductor.custom_graph_pass import CustomGraphPass
    except ImportError:
        return run, False

    class RewritePass(CustomGraphPass):
        def __call__(self, graph):
            run(graph)

        def uuid(self):
            prior = None
            if before is not None:
                prior = before.uuid() if isinstance(before, CustomGraphPass) else None
                if prior is None:
                    return None
            return ("kopt.rewrites", tuple(names), _source_hash(), prior)
    return RewritePass(), True


def _first(fns):
    """The decomposition that tries fns in turn: the first result that is
    not NotImplemented."""
    if len(fns) == 1:
        return fns[0]

    def chained(*args, **kwargs):
        for fn in fns:
            r = fn(*args, **kwargs)
            if r is not NotImplemented:
                return r
        return NotImplemented
    return chained


@contextlib.contextmanager
def applied(rewrites: dict):
    """The rewrites in Inductor's decomposition tables, and the graph passes
    as its post-grad custom pass, while the context lasts (compile inside
    it). AOTAutograd's cache is off: it keys on the graph before the
    decompositions. Inductor's graph cache stays on: it keys on the graph
    after them, where the rewrites show, and on the custom pass's uuid
    (_graph_pass; off where the pass has none): a fresh worker compiling a
    rewrite's variant again (a stitch, a later build) finds it there.""" 
    if not rewrites:
        yield
        return
    from torch._functorch import config as fconfig
    from torch._inductor import config
    from torch._inductor import decomposition as idecomp

    tables = [idecomp.decompositions]
    sel = idecomp.select_decomp_table()
    if sel is not idecomp.decompositions:
        tables.append(sel)
    saved = []
    stack = contextlib.ExitStack()
    if hasattr(fconfig, "enable_autograd_cache"):
        stack.enter_context(fconfig.patch(enable_autograd_cache=False))
    try:
        chains: dict = {}
        table = _table()
        for name in NAMES:
            if name in rewrites and name in table:
                for op, fn in table[name].items():
                    chains.setdefault(op, []).append(fn)
        names = [name for name in NAMES if name in rewrites and name in GRAPH_PASSES]
        if "flash_attention" in rewrites:  # its graph calls kopt::attention, also where Inductor's cache answers
            from . import attention

            attention.register()
        keyed = True
        if names:
            pass_, keyed = _graph_pass(config.post_grad_custom_pre_pass, [GRAPH_PASSES[n] for n in names], names)
            stack.enter_context(config.patch(post_grad_custom_pre_pass=pass_))
        if not keyed:
            stack.enter_context(config.patch(fx_graph_cache=False, fx_graph_remote_cache=False))
        for op, fns in chains.items():
            for t in tables:
                saved.append((t, op, t.get(op)))
                t[op] = _first(fns)
        yield
    finally:
        stack.close()
        for t, op, fn in reversed(saved):
            if fn is None:
                t.pop(op, None)
            else:
                t[op] = fn
