"""The graph facts: what the implementation-space search reads of a model
(rules/space.c, through its profile's summary), counted as the ATen ops of
one eager call are dispatched.

The ATen convolutions (and of those the transposed, the depthwise and the
forward 3-D ones), poolings, GEMMs (and sums or means over a matrix
product's features), attentions (a softmax between two batched products,
with or without a causal-like mask), products read in part (a select or
slice of their output, through views), and reductions (and those over axes
that leave a contiguous last axis out), and the elements of the model's
parameters and buffers. FACTS names them as the profile does (PROTOCOL.md,
profile); rules/summary.h's RULE_GRAPH_FACTS is the list, which
tests/lists.py checks FACTS against.

Most facts say where one of koptmake's rewrites could apply (rewrites.py
and its parts): what it takes is followed through the call as the rewrite
follows it through the graph (Tracked sets of tensors, by weak reference).
"""

from __future__ import annotations

import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from .rewrite_graph import constant_over

# the facts counted in a call, in the profile's order; "parameters" besides
FACTS = ("convolutions", "gemms", "reductions", "transposed_convolutions", "depthwise_convolutions",
         "convolutions_3d", "poolings", "linear_reductions", "strided_reductions", "attentions",
         "sliced_products")

CONVS = {"convolution", "_convolution", "cudnn_convolution", "convolution_overrideable"}
GEMMS = {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "_scaled_mm", "addbmm"}
REDUCTIONS = {"sum", "mean", "amax", "amin", "max", "min", "prod", "var", "std", "var_mean", "std_mean",
              "_softmax", "_log_softmax", "softmax", "log_softmax", "logsumexp", "norm", "linalg_vector_norm",
              "native_layer_norm", "native_batch_norm", "_native_batch_norm_legit_no_training",
              "native_group_norm", "argmax", "argmin", "cumsum", "cumprod", "nll_loss_forward", "all", "any"}
# what rewrites.pool_as_pointwise takes
POOLS = {"avg_pool2d", "avg_pool3d", "max_pool2d_with_indices", "max_pool3d_with_indices"}
# the reductions whose second argument is their axes
STRIDED = {"sum", "mean", "amax", "amin", "max", "min", "prod", "var", "std", "var_mean", "std_mean",
           "_softmax", "_log_softmax", "logsumexp", "argmax", "argmin", "all", "any"}
VIEW_OPS = {"view", "_unsafe_view", "reshape", "_reshape_alias"}
# the views of a matrix product's output that read a part of it (a select,
# a slice) or carry it on: what rewrites.slice_products takes
PART_VIEWS = VIEW_OPS | {"permute", "transpose", "t", "unsqueeze", "squeeze", "expand", "alias", "select",
                         "slice", "narrow"}


def graph_facts(problem, inputs) -> dict:
    """FACTS of one eager call of problem's model on inputs, and its
    parameters' elements ("parameters")."""
    model = problem.model
    count = Count()
    with torch.no_grad(), count:
        model(*inputs)
    count.counts["parameters"] = sum(t.numel() for t in list(model.parameters()) + list(model.buffers()))
    return count.counts


class Tracked:
    """A set of tensors by weak reference: has(t) only for t itself, not for
    a later tensor that took a freed one's id; keeps none alive."""

    def __init__(self):
        self.refs: dict = {}

    def add(self, t) -> None:
        self.refs[id(t)] = weakref.ref(t)

    def has(self, t) -> bool:
        r = self.refs.get(id(t))
        return r is not None and r() is t


class Count(TorchDispatchMode):
    """Counts FACTS as the ops are dispatched, following the tensors that
    the rewrites follow."""

    def __init__(self):
        super().__init__()
        self.counts = dict.fromkeys(FACTS, 0)
        # matrix products' outputs (and those times a number, ...),
        # transposed convolutions' outputs (and those through per-channel
        # operands), convolutions' outputs (and those through operands the
        # same over the channels)
        self.linear, self.spatial, self.channels = Tracked(), Tracked(), Tracked()
        # an attention's scores (a batched product's output, through
        # numbers and views) and its probabilities (their softmax over the
        # last axis, through views): what rewrites.fuse_attention takes,
        # where a batched product's left operand is such probabilities, in
        # float32
        self.scores, self.probs = Tracked(), Tracked()
        # matrix products' outputs through views, and the views of them
        # that read a part (a select, a slice): what
        # rewrites.slice_products takes
        self.products = Tracked()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        tconv = self._op(name, args)
        part = name in ("select", "slice", "narrow") and args and self.products.has(args[0])
        out = func(*args, **(kwargs or {}))
        if not isinstance(out, torch.Tensor):
            return out
        if part and out.numel() < args[0].numel():
            self.counts["sliced_products"] += 1
        self._follow(name, args, out, tconv)
        return out

    def _op(self, name: str, args) -> bool:
        """Counts the op itself; whether it is a transposed convolution."""
        c = self.counts
        tconv = False
        if name in CONVS:
            c["convolutions"] += 1
            # convolution(input, weight, bias, stride, padding, dilation, transposed, ...):
            # what rewrites.conv_transpose_as_conv turns into forward convolutions
            # (aten.convolution's schema only: cudnn_convolution's 7th is another flag)
            if name == "convolution" and len(args) > 6 and args[6] is True:
                c["transposed_convolutions"] += 1
                tconv = True
            # ... and what rewrites.depthwise_as_pointwise takes (groups = input channels)
            elif name == "convolution" and len(args) > 8 and args[6] is False and int(args[8]) > 1 and \
                    int(args[8]) == int(args[0].shape[1]) and int(args[1].shape[1]) == 1:
                c["depthwise_convolutions"] += 1
            # ... and rewrites.conv3d_as_conv2d (a forward one over 3-D)
            elif name == "convolution" and len(args) > 6 and args[6] is False and args[1].dim() == 5:
                c["convolutions_3d"] += 1
        elif name in POOLS:
            c["poolings"] += 1
        elif name in GEMMS:
            c["gemms"] += 1
        elif name in REDUCTIONS:
            c["reductions"] += 1
            # ... over axes that leave the contiguous last one out: what
            # Inductor's tiled reductions (triton.tile_reductions) are for
            if strided_reduction(name, args):
                c["strided_reductions"] += 1
        # what the linear-reduction fold takes (rewrites.fold_linear_ops):
        # a sum or mean over the features (the last axis) of a matrix
        # product, over every spatial axis of a transposed convolution,
        # over the channels of a convolution
        axes = reduced_axes(name, args)
        if axes and (self.linear.has(args[0]) and axes == [args[0].dim() - 1] or
                     self.spatial.has(args[0]) and axes == list(range(2, args[0].dim())) or
                     self.channels.has(args[0]) and axes == [1]):
            c["linear_reductions"] += 1
        if name == "bmm" and self.probs.has(args[0]) and args[0].dtype == torch.float32:
            c["attentions"] += 1
        return tconv

    def _follow(self, name: str, args, out, tconv: bool) -> None:
        """Tracks out where it carries on what a rewrite follows."""
        first = args[0] if args else None
        if name in ("mm", "addmm", "bmm") or args and self.products.has(first) and name in PART_VIEWS:
            self.products.add(out)
        if name == "bmm" or args and self.scores.has(first) and (
                name in VIEW_OPS or name in ("mul", "div") and len(args) > 1 and isinstance(args[1], (int, float))
                or name == "masked_fill" and causal_like(args)):
            self.scores.add(out)
        if name == "_softmax" and self.scores.has(first) and int(args[1]) % out.dim() == out.dim() - 1 or \
                args and self.probs.has(first) and (name in VIEW_OPS or name in ("expand", "clone")):
            self.probs.add(out)
        if name in CONVS and out.dim() >= 3 or args and self.channels.has(first) and same_over(name, args, out, [1]):
            self.channels.add(out)
        if name in ("mm", "addmm") and out.dim() == 2 or args and self.linear.has(first) and \
                out.dim() >= 1 and follows(name, args, out):
            self.linear.add(out)
        if tconv or args and self.spatial.has(first) and same_over(name, args, out, list(range(2, out.dim()))):
            self.spatial.add(out)


def causal_like(args) -> bool:
    """a masked_fill with -inf whose mask is the same over every axis
    but the last two (a causal mask): what the attention rewrite takes
    with its scores"""
    if len(args) < 3 or not isinstance(args[1], torch.Tensor) or args[1].dtype != torch.bool:
        return False
    v = args[2].item() if isinstance(args[2], torch.Tensor) and args[2].numel() == 1 else args[2]
    return isinstance(v, float) and v == float("-inf") and all(int(e) == 1 for e in args[1].shape[:-2])


def reduced_axes(name, args):
    """a sum's or a mean's axes, sorted, in its input's numbering (None
    for another op, or one over every axis)"""
    if name not in ("sum", "mean") or len(args) < 2 or not isinstance(args[0], torch.Tensor) or \
            not isinstance(args[1], (list, tuple, int)):
        return None
    dims = args[1] if isinstance(args[1], (list, tuple)) else [args[1]]
    return sorted(int(a) % args[0].dim() for a in dims) or None


def strided_reduction(name, args) -> bool:
    """whether a reduction (its axes as args[1], an int or a list)
    reduces a contiguous tensor of two axes or more over axes that
    leave out its last, which is longer than one"""
    x = args[0] if args else None
    if name not in STRIDED or not isinstance(x, torch.Tensor) or x.dim() < 2 or len(args) < 2 or \
            x.shape[-1] <= 1 or x.stride(-1) != 1:
        return False
    dims = args[1]
    dims = [dims] if isinstance(dims, int) else dims
    if not isinstance(dims, (list, tuple)) or not dims or not all(isinstance(d, int) for d in dims):
        return False
    return all(d % x.dim() != x.dim() - 1 for d in dims)


def same_over(name, args, out, axes) -> bool:
    """whether out carries a convolution's output on as the folds follow
    it: times, over, plus or less a number or a tensor the same along
    axes (rewrite_graph.constant_over: the spatial axes for the transposed
    convolution's mean, the channels for the channel sum)"""
    other = args[1] if len(args) > 1 else None
    if name not in ("mul", "div", "add", "sub"):
        return False
    if isinstance(other, (int, float)):
        return True
    return isinstance(other, torch.Tensor) and constant_over(other.shape, out.dim(), axes)


def follows(name, args, out) -> bool:
    """whether out carries a matrix product's features on as
    rewrites.fold_linear_reductions follows them: times or over a
    number, plus or less a vector over the features or a number, a view
    keeping them last"""
    other = args[1] if len(args) > 1 else None
    number = isinstance(other, (int, float)) or isinstance(other, torch.Tensor) and other.dim() == 0
    if name in ("mul", "div"):
        return number
    if name in ("add", "sub"):
        return number or isinstance(other, torch.Tensor) and other.dim() == 1 and other.shape[0] == out.shape[-1]
    return name in VIEW_OPS and args[0].shape[-1] == out.shape[-1]
