"""tests/runtime/test_attention_guards.py: the attention rewrite's
softmax guard (kopt.rewrite_attention._softmax_core) on a graph built by
hand: aten._softmax over the last axis (written -1 or as the last index)
gives its input; over another axis, with half_to_float, with another
number of arguments, on a constant or on a node without a value, none;
and the mask guard (kopt.rewrite_attention._attention_mask): which
masked_fill and where forms mask scores with -inf, and which way round,
the -inf a number, a 0-d tensor made of one, or a constant the module
holds.
Needs torch (any version with torch.fx and torch.ops.aten; CPU). Prints
TAP."""
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

import torch  # noqa: E402

from kopt import rewrite_attention as R  # noqa: E402

aten = torch.ops.aten


def softmax(*args, val=(2, 3, 4)):
    """(x, the softmax node) in a fresh graph; x holds a value of shape val
    (None: no value)"""
    g = torch.fx.Graph()
    x = g.placeholder("x")
    if val is not None:
        x.meta["val"] = torch.empty(*val)
    return x, g.call_function(aten._softmax.default, (x,) + args)


x, s = softmax(-1, False)
ok(R._softmax_core(s) is x, "aten._softmax over axis -1: its input")
x, s = softmax(2, False)
ok(R._softmax_core(s) is x, "... over axis 2 of a 3-D value, the last: its input")
x, s = softmax(1, False, val=(5, 7))
ok(R._softmax_core(s) is x, "... over axis 1 of a 2-D value: its input")
x, s = softmax(1, False)
ok(R._softmax_core(s) is None, "... over axis 1 of a 3-D value: none")
x, s = softmax(0, False, val=(5,))
ok(R._softmax_core(s) is x, "... over axis 0 of a 1-D value: its input")
x, s = softmax(-2, False)
ok(R._softmax_core(s) is None, "... over axis -2: none")
x, s = softmax(-1, True)
ok(R._softmax_core(s) is None, "... with half_to_float: none")
x, s = softmax(-1, False, val=None)
ok(R._softmax_core(s) is None, "... of a node without a value: none")
g = torch.fx.Graph()
x = g.placeholder("x")
x.meta["val"] = torch.empty(2, 3)
ok(R._softmax_core(g.call_function(aten._softmax.default, (x, -1))) is None, "... with two arguments: none")
ok(R._softmax_core(g.call_function(aten._softmax.default, (2.0, -1, False))) is None, "... of a constant: none")
ok(R._softmax_core(g.call_function(aten.exp.default, (x,))) is None, "another op: none")


def graph_with(*names):
    g = torch.fx.Graph()
    return g, [g.placeholder(n) for n in names]


ninf = float("-inf")
g, (scores, cond) = graph_with("scores", "cond")
ok(R._attention_mask(g.call_function(aten.masked_fill.Scalar, (scores, cond, ninf))) == (cond, scores, False),
   "mask: masked_fill(scores, cond, -inf): cond, scores, True leaves a score out")
ok(R._attention_mask(g.call_function(aten.where.self, (cond, ninf, scores))) == (cond, scores, False),
   "mask: where(cond, -inf, scores): cond, scores, True leaves a score out")
ok(R._attention_mask(g.call_function(aten.where.self, (cond, scores, ninf))) == (cond, scores, True),
   "mask: where(cond, scores, -inf): cond, scores, True keeps a score")
full = g.call_function(aten.full.default, ([], ninf))
ok(R._attention_mask(g.call_function(aten.where.self, (cond, full, scores))) == (cond, scores, False),
   "mask: the -inf as a 0-d tensor full([], -inf)")
ok(R._attention_mask(g.call_function(aten.where.self, (cond, g.call_function(aten.full.default, ([2], ninf)), scores)))
   is None, "mask: a -inf tensor of one dimension is no number: none")
ok(R._attention_mask(g.call_function(aten.masked_fill.Scalar, (scores, cond, -1e9))) is None,
   "mask: masked_fill with -1e9, not -inf: none")
ok(R._attention_mask(g.call_function(aten.where.self, (cond, scores, 0.0))) is None,
   "mask: where with 0 on either side: none")
ok(R._attention_mask(g.call_function(aten.where.self, (cond, ninf, ninf))) is None,
   "mask: where(cond, -inf, -inf), no scores: none")
ok(R._attention_mask(g.call_function(aten.add.Tensor, (scores, cond))) is None, "mask: another op: none")
ok(R._attention_mask(scores) is None, "mask: a placeholder: none")


# the fill as a constant the module holds (a traced torch.tensor(-inf) is
# a get_attr, lifted by a copy): a mask only where it is a floating -inf
# of one element
class Consts(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.neg = torch.tensor(ninf)
        self.zero = torch.tensor(0.0)
        self.big = torch.tensor(-1e9)
        self.two = torch.full((2,), ninf)
        self.whole = torch.tensor(-5)


g, (scores, cond) = graph_with("scores", "cond")
fills = {}
for name in ("neg", "zero", "big", "two", "whole"):
    c = g.call_function(aten.lift_fresh_copy.default, (g.get_attr(name),))
    fills[name] = g.call_function(aten.masked_fill.Tensor, (scores, cond, c))
g.output(tuple(fills.values()))
gm = torch.fx.GraphModule(Consts(), g)
at = {n.name: n for n in gm.graph.nodes}
got = {k: R._attention_mask(at[v.name]) for k, v in fills.items()}
ok(got["neg"] == (at["cond"], at["scores"], False), "mask: the -inf as a constant the module holds, through a copy")
ok(all(got[k] is None for k in ("zero", "big", "two", "whole")),
   "mask: a held constant of 0, of -1e9, of two elements or of integers: none (%s)"
   % ", ".join("%s %s" % (k, "none" if v is None else "a mask") for k, v in got.items()))
g, (scores, cond) = graph_with("scores", "cond")
ok(R._attention_mask(g.call_function(aten.masked_fill.Tensor, (scores, cond, g.get_attr("neg")))) is None,
   "mask: a constant of a graph that no module owns: none")
done()
