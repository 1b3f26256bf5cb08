"""tests/runtime/test_rewrites.py: koptmake's own graph rewrites
(runtime/python/kopt/rewrites.py, the registry, and its parts
rewrite_ops.py, rewrite_fold.py, rewrite_attention.py, rewrite_slice.py). Without torch: the variant options are
split into Inductor's and koptmake's, an unknown kopt.NAME is named, a
rewrite turned off is left out. With torch (any version with torch.ops.aten,
CPU is enough; make check-gpu runs it on the GPU machine too): a
transposed convolution rewritten as forward convolutions (one, at stride
1; one per phase of the output, interleaved, at larger strides) equals
torch's own in 1-D, 2-D and 3-D, with groups, dilation, padding,
output_padding and bias, phases no tap reaches and padding that crops; a depthwise convolution rewritten as the sum of
its shifted windows equals torch's own in 1-D, 2-D and 3-D, with channel
multipliers, strides, padding, dilation and bias; a 3-D convolution as
2-D ones per depth tap equals torch's; average and max
pooling rewritten as pointwise arithmetic over the windows give torch's
values and max pooling's indices (ties and NaN included); the cases they
do not cover return NotImplemented; the linear-reduction fold turns a sum
or mean over the features of an mm, addmm or bmm into x times the summed
weights, summed (no matrix product and no aten.mv left), with the
unfolded graph's values, and leaves alone what it cannot take. The graph passes are Inductor's custom pass with a uuid where torch
has CustomGraphPass (its graph cache keys on them), a plain function
where not. Prints TAP."""
import math
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import rewrites  # noqa: E402
from kopt import rewrite_attention, rewrite_fold, rewrite_ops, rewrite_slice  # noqa: E402,F401

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402





ind, own = rewrites.split({"freezing": True, "kopt.conv_transpose_as_conv": True, "triton.max_tiles": 3})
ok(ind == {"freezing": True, "triton.max_tiles": 3} and own == {"conv_transpose_as_conv": True},
   "split: Inductor's options and koptmake's rewrites apart", (ind, own))
ind, own = rewrites.split({"kopt.conv_transpose_as_conv": False})
ok(ind == {} and own == {}, "a rewrite turned off is left out", (ind, own))
try:
    rewrites.split({"kopt.nonesuch": True, "kopt.conv_transpose_as_conv": True})
    ok(False, "an unknown kopt.NAME is an error")
except ValueError as e:
    ok("kopt.nonesuch" in str(e) and "known: kopt.conv_transpose_as_conv" in str(e),
       "an unknown kopt.NAME is an error that names it and the known ones", e)

# the graph passes as Inductor's custom pass (_graph_pass), in a child
# with a stand-in torch (a TEST DOUBLE: torch._inductor.custom_graph_pass's
# CustomGraphPass, an abstract class with __call__ and uuid, as torch 2.11
# has it; or no such module, as older torch)
import subprocess  # noqa: E402

CHILD = r"""
import abc, json, sys, types
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "with":
    for name in ("torch", "torch._inductor"):
        sys.modules[name] = types.ModuleType(name)
    cgp = types.ModuleType("torch._inductor.custom_graph_pass")
    class CustomGraphPass(abc.ABC):
        @abc.abstractmethod
        def __call__(self, graph): ...
        @abc.abstractmethod
        def uuid(self): ...
    cgp.CustomGraphPass = CustomGraphPass
    sys.modules["torch._inductor.custom_graph_pass"] = cgp
else:
    sys.modules["torch"] = types.ModuleType("torch")
from kopt import rewrites as R
seen = []
p1 = lambda g: seen.append(("fold", g))
out = {}
p, keyed = R._graph_pass(None, [p1], ["linear_reduction_fold"])
p("G")
out["keyed"], out["seen"], out["kind"] = keyed, list(seen), type(p).__name__
if keyed:
    out["uuid"] = list(p.uuid())
    out["other"] = list(R._graph_pass(None, [p1], ["other"])[0].uuid())
    class Mine(sys.modules["torch._inductor.custom_graph_pass"].CustomGraphPass):
        def __call__(self, g): seen.append(("mine", g))
        def uuid(self): return "mine-1"
    q, _ = R._graph_pass(Mine(), [p1], ["linear_reduction_fold"])
    seen.clear(); q("H")
    out["before"], out["before_uuid"] = list(map(list, seen)), list(q.uuid())
    out["plain_before_uuid"] = R._graph_pass(lambda g: None, [p1], ["linear_reduction_fold"])[0].uuid()
print(json.dumps(out))
"""
runtime_py = os.path.join(top, "runtime", "python")
import json  # noqa: E402

w = json.loads(subprocess.run([sys.executable, "-c", CHILD, runtime_py, "with"], capture_output=True, text=True,
                              check=True).stdout)
ok(w["keyed"] and w["kind"] == "RewritePass" and w["seen"] == [["fold", "G"]],
   "graph pass: with CustomGraphPass, one that runs the rewrites on the graph, keyed", w)
ok(w["uuid"][:2] == ["kopt.rewrites", ["linear_reduction_fold"]] and len(w["uuid"][2]) == 64
   and w["uuid"][3] is None and w["other"][1] == ["other"] and w["other"] != w["uuid"],
   "graph pass: its uuid names the rewrites and this file's hash (another rewrite, another uuid)", w)
ok(w["before"] == [["mine", "H"], ["fold", "H"]] and w["before_uuid"][3] == "mine-1",
   "graph pass: a user's pass runs first, and its uuid is in ours", w)
ok(w["plain_before_uuid"] is None,
   "graph pass: a user's pass without a uuid leaves ours none (Inductor compiles without its cache)", w)
wo = json.loads(subprocess.run([sys.executable, "-c", CHILD, runtime_py, "without"], capture_output=True,
                               text=True, check=True).stdout)
ok(not wo["keyed"] and wo["kind"] == "function" and wo["seen"] == [["fold", "G"]],
   "graph pass: without CustomGraphPass, a plain function, not keyed (the cache goes off)", wo)

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print(f"# no torch here: the rewrite's numbers are checked where torch is (make check-gpu)")
    done()

torch.manual_seed(0)
ct = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
cases = [
    # nd, N, Cin, Cout, spatial, kernel, padding, output_padding, dilation, groups, bias
    (1, 2, 4, 6, (17,), (3,), (0,), (0,), (1,), 1, True),
    (1, 2, 4, 6, (17,), (5,), (2,), (1,), (2,), 2, False),
    (2, 2, 6, 4, (9, 11), (3, 3), (1, 1), (0, 0), (1, 1), 1, True),
    (2, 1, 6, 9, (8, 7), (3, 5), (0, 2), (0, 0), (1, 1), 3, True),
    (2, 2, 4, 4, (10, 10), (3, 3), (1, 0), (1, 1), (2, 2), 4, False),
    (3, 2, 4, 6, (5, 6, 7), (3, 3, 3), (0, 0, 0), (0, 0, 0), (1, 1, 1), 1, True),
    (3, 1, 4, 8, (6, 5, 4), (3, 5, 2), (1, 2, 0), (0, 0, 0), (1, 1, 1), 2, True),
    (3, 1, 2, 2, (5, 5, 5), (3, 3, 3), (2, 1, 0), (1, 0, 1), (2, 2, 2), 1, False),
]
for nd, N, cin, cout, sp, k, p, op, d, g, b in cases:
    x = torch.randn(N, cin, *sp, dtype=torch.float64)
    w = torch.randn(cin, cout // g, *k, dtype=torch.float64)
    bias = torch.randn(cout, dtype=torch.float64) if b else None
    want = ct[nd](x, w, bias, stride=1, padding=p, output_padding=op, groups=g, dilation=d)
    got = rewrite_ops.conv_transpose_as_conv(x, w, bias, [1] * nd, list(p), list(d), True, list(op), g)
    same = got is not NotImplemented and got.shape == want.shape and torch.allclose(got, want, rtol=1e-10, atol=1e-10)
    ok(same, f"{nd}-D, kernel {k}, padding {p}, output_padding {op}, dilation {d}, groups {g}, bias {b}: "
       "the forward convolution equals conv_transpose",
       "NotImplemented" if got is NotImplemented else f"shape {tuple(got.shape)} want {tuple(want.shape)}; "
       f"max diff {float((got - want).abs().max()) if got.shape == want.shape else 'n/a'}")

cf = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
dw = [
    # nd, N, C, multiplier, spatial, kernel, stride, padding, dilation, bias
    (1, 2, 5, 1, (23,), (3,), (1,), (1,), (1,), True),
    (1, 2, 3, 2, (20,), (5,), (2,), (0,), (2,), False),
    (2, 2, 4, 1, (12, 15), (3, 3), (1, 1), (0, 0), (1, 1), True),
    (2, 1, 3, 3, (11, 9), (3, 5), (2, 1), (1, 2), (1, 1), True),
    (2, 2, 6, 1, (16, 16), (3, 3), (2, 2), (2, 2), (2, 2), False),
    (2, 1, 2, 1, (9, 9), (7, 7), (1, 1), (3, 3), (1, 1), True),
    (3, 1, 3, 1, (7, 8, 9), (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), True),
    (3, 1, 2, 2, (6, 7, 8), (2, 3, 2), (2, 1, 1), (0, 1, 0), (1, 1, 2), False),
]
for nd, N, C, m, sp, k, st, p, d, b in dw:
    x = torch.randn(N, C, *sp, dtype=torch.float64)
    w = torch.randn(C * m, 1, *k, dtype=torch.float64)
    bias = torch.randn(C * m, dtype=torch.float64) if b else None
    want = cf[nd](x, w, bias, stride=st, padding=p, dilation=d, groups=C)
    got = rewrite_ops.depthwise_as_pointwise(x, w, bias, list(st), list(p), list(d), False, [0] * nd, C)
    same = got is not NotImplemented and got.shape == want.shape and torch.allclose(got, want, rtol=1e-10, atol=1e-10)
    ok(same, f"depthwise {nd}-D, {C} channels x {m}, kernel {k}, stride {st}, padding {p}, dilation {d}, bias {b}: "
       "the sum of shifted windows equals the convolution",
       "NotImplemented" if got is NotImplemented else f"shape {tuple(got.shape)} want {tuple(want.shape)}; "
       f"max diff {float((got - want).abs().max()) if got.shape == want.shape else 'n/a'}")
x = torch.randn(1, 4, 16, 16)
ok(rewrite_ops.depthwise_as_pointwise(x, torch.randn(8, 2, 3, 3), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 2)
   is NotImplemented, "grouped but not depthwise (two channels a group): not rewritten")
ok(rewrite_ops.depthwise_as_pointwise(x, torch.randn(4, 4, 3, 3), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
   is NotImplemented, "an ordinary convolution: not rewritten")
ok(rewrite_ops.depthwise_as_pointwise(x, torch.randn(4, 1, 9, 9), None, [1, 1], [4, 4], [1, 1], False, [0, 0], 4)
   is NotImplemented, "81 taps, more than 64: not rewritten")
ok(rewrite_ops.depthwise_as_pointwise(x, torch.randn(4, 1, 3, 3), None, [1, 1], [0, 0], [1, 1], True, [0, 0], 4)
   is NotImplemented, "a transposed depthwise convolution: not this rewrite")
both = rewrites._first([rewrite_ops.conv_transpose_as_conv, rewrite_ops.depthwise_as_pointwise])
xd, wd = torch.randn(1, 4, 10, 10, dtype=torch.float64), torch.randn(4, 1, 3, 3, dtype=torch.float64)
ok(torch.allclose(both(xd, wd, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 4), F.conv2d(xd, wd, padding=1, groups=4)),
   "both rewrites on: the depthwise one takes a depthwise convolution the other declines")

# one-tap convolutions as matrix products (conv1x1_as_product): torch's
# values, channels-last out, at 1-3 D, strided, with a bias, from an NCHW
# and a channels-last input; what it declines
F1 = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
p1 = [
    # nd, N, Cin, Cout, spatial, stride, bias, channels-last input
    (2, 2, 5, 7, (6, 9), (1, 1), True, False),
    (2, 1, 3, 4, (7, 8), (2, 2), False, True),
    (2, 3, 4, 6, (5, 5), (1, 3), True, True),
    (1, 2, 6, 3, (11,), (2,), True, False),
    (3, 1, 4, 5, (3, 4, 5), (1, 2, 2), True, False),
]
for nd, N, cin, cout, sp, st, b, cl in p1:
    x = torch.randn(N, cin, *sp, dtype=torch.float64)
    if cl:
        x = x.to(memory_format=torch.channels_last)
    w = torch.randn(cout, cin, *([1] * nd), dtype=torch.float64)
    bias = torch.randn(cout, dtype=torch.float64) if b else None
    want = F1[nd](x, w, bias, stride=st)
    got = rewrite_ops.conv1x1_as_product(x, w, bias, list(st), [0] * nd, [1] * nd, False, [0] * nd, 1)
    same = got is not NotImplemented and got.shape == want.shape and torch.allclose(got, want, rtol=1e-10, atol=1e-10)
    last = got is not NotImplemented and got.stride()[1] == 1
    ok(same and last, f"a one-tap {nd}-D convolution, stride {st}, bias {b}, {'channels-last' if cl else 'NCHW'} input: "
       "the product of its positions by its channels equals it, channels-last",
       "NotImplemented" if got is NotImplemented else f"shape {tuple(got.shape)} want {tuple(want.shape)}, "
       f"strides {got.stride()}")
x, w1 = torch.randn(1, 4, 6, 6), torch.randn(8, 4, 1, 1)
for what, args in [("a 3x3 kernel", (x, torch.randn(8, 4, 3, 3), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)),
                   ("two groups", (x, torch.randn(8, 2, 1, 1), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 2)),
                   ("padding 1", (x, w1, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)),
                   ("a transposed one", (x, torch.randn(4, 8, 1, 1), None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1)),
                   ("an unbatched input", (x[0], w1, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)),
                   ("a 3x1 kernel", (x, torch.randn(8, 4, 3, 1), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)),
                   ("a 1-D kernel of 3 taps", (x[:, :, 0], torch.randn(8, 4, 3), None, [1], [0], [1], False, [0], 1))]:
    ok(rewrite_ops.conv1x1_as_product(*args) is NotImplemented, f"a one-tap convolution rewrite: {what}: not rewritten")

# 3-D convolutions as 2-D ones per depth tap
c3 = [
    # N, Cin, Cout, spatial, kernel, stride, padding, dilation, groups, bias
    (2, 4, 6, (7, 8, 9), (3, 3, 3), (1, 1, 1), (1, 1, 1), (1, 1, 1), 1, True),
    (1, 4, 4, (9, 7, 8), (3, 2, 3), (2, 1, 2), (2, 0, 1), (2, 1, 1), 2, False),
    (1, 3, 6, (5, 6, 7), (1, 3, 3), (1, 2, 1), (0, 1, 1), (1, 1, 2), 3, True),
    (2, 2, 2, (4, 4, 4), (4, 1, 1), (3, 1, 1), (1, 0, 0), (1, 1, 1), 1, True),
]
for N, cin, cout, sp, k, st, p, d, g, b in c3:
    x = torch.randn(N, cin, *sp, dtype=torch.float64)
    w = torch.randn(cout, cin // g, *k, dtype=torch.float64)
    bias = torch.randn(cout, dtype=torch.float64) if b else None
    want = F.conv3d(x, w, bias, st, p, d, g)
    got = rewrite_ops.conv3d_as_conv2d(x, w, bias, list(st), list(p), list(d), False, [0, 0, 0], g)
    same = got is not NotImplemented and got.shape == want.shape and torch.allclose(got, want, rtol=1e-10, atol=1e-10)
    ok(same and got.is_contiguous(), f"3-D convolution, kernel {k}, stride {st}, padding {p}, dilation {d}, groups {g}: "
       "2-D ones per depth tap, summed, equal it (contiguous)",
       "NotImplemented" if got is NotImplemented else f"shape {tuple(got.shape)} want {tuple(want.shape)}")
ok(rewrite_ops.conv3d_as_conv2d(torch.randn(1, 2, 5, 5), torch.randn(2, 2, 3, 3), None, [1, 1], [0, 0], [1, 1], False,
                             [0, 0], 1) is NotImplemented, "a 2-D convolution: not this rewrite")
both = rewrites._first([rewrite_ops.conv_transpose_as_conv, rewrite_ops.conv3d_as_conv2d])
x, w = torch.randn(1, 4, 4, 5, 6, dtype=torch.float64), torch.randn(4, 2, 3, 3, 3, dtype=torch.float64)
want = F.conv_transpose3d(x, w, stride=2, padding=1, output_padding=1, groups=2)
fx = None
try:
    from torch.fx.experimental.proxy_tensor import make_fx as fx
except ImportError:
    pass
if fx is not None:
    g3 = fx(lambda a, b: F.conv_transpose3d(a, b, stride=2, padding=1, output_padding=1, groups=2),
            decomposition_table={torch.ops.aten.convolution.default: both}, tracing_mode="fake")(x, w)
    convs = [n for n in g3.graph.nodes if n.op == "call_function" and "convolution" in str(n.target)]
    ok(convs and all(len(n.args[1].meta["val"].shape) == 4 and not n.args[6] for n in convs)
       and torch.allclose(g3(x, w), want, atol=1e-9),
       f"a strided 3-D transposed convolution with both rewrites: {len(convs)} 2-D forward convolutions, torch's values")

# pooling: values (and max pooling's indices) as torch's own
pools = [
    # nd, shape, kernel, stride, padding, dilation (max only)
    (2, (2, 3, 13, 11), (3, 3), (2, 2), (1, 1), (1, 1)),
    (2, (1, 2, 12, 12), (2, 3), (1, 2), (0, 1), (2, 1)),
    (2, (2, 2, 9, 16), (4, 4), (4, 4), (0, 0), (1, 1)),
    (3, (1, 2, 9, 10, 11), (3, 3, 3), (2, 2, 2), (1, 1, 1), (1, 1, 1)),
    (3, (2, 1, 8, 7, 6), (2, 3, 2), (1, 2, 1), (1, 1, 0), (2, 1, 1)),
]
mp = {2: F.max_pool2d, 3: F.max_pool3d}
ap = {2: F.avg_pool2d, 3: F.avg_pool3d}
for nd, shape, k, st, p, d in pools:
    x = torch.randn(*shape, dtype=torch.float64)
    x.view(-1)[::7] = x.view(-1)[3]  # ties: the first maximum's index must win
    wv, wi = mp[nd](x, k, st, p, d, return_indices=True)
    gv, gi = rewrite_ops.max_pool(nd)(x, list(k), list(st), list(p), list(d), False)
    ok(gv.shape == wv.shape and torch.equal(gv, wv) and torch.equal(gi, wi),
       f"max pool {nd}-D, kernel {k}, stride {st}, padding {p}, dilation {d}: values and indices as torch's",
       f"values equal {gv.shape == wv.shape and torch.equal(gv, wv)}, indices equal "
       f"{gi.shape == wi.shape and torch.equal(gi, wi)}")
    for cip, div in ((True, None), (True, 5)):
        want = ap[nd](x, k, st, p, False, cip, div)
        got = rewrite_ops.avg_pool(nd)(x, list(k), list(st), list(p), False, cip, div)
        ok(got is not NotImplemented and torch.allclose(got, want, rtol=1e-12, atol=1e-12),
           f"avg pool {nd}-D, kernel {k}, stride {st}, padding {p}, divisor {div or 'taps'}: as torch's",
           "NotImplemented" if got is NotImplemented else float((got - want).abs().max()))
for nd, shape, k, st, p in ((2, (2, 3, 40, 37), (11, 11), (11, 11), (0, 0)), (2, (1, 2, 30, 33), (9, 10), (3, 4), (4, 5)),
                            (3, (1, 2, 12, 13, 14), (5, 4, 5), (2, 3, 1), (2, 2, 1))):
    x = torch.randn(*shape, dtype=torch.float64)
    want = ap[nd](x, k, st, p)
    got = rewrite_ops.avg_pool(nd)(x, list(k), list(st), list(p), False, True, None)
    ok(got is not NotImplemented and torch.allclose(got, want, rtol=1e-12, atol=1e-12),
       f"avg pool {nd}-D over {k} (more than 64 taps), stride {st}, padding {p}: summed an axis at a time, as torch's",
       "NotImplemented" if got is NotImplemented else float((got - want).abs().max()))
ok(rewrite_ops.max_pool(2)(torch.randn(1, 1, 30, 30), [9, 9], [1, 1], [0, 0], [1, 1], False) is NotImplemented,
   "max pooling over 81 taps: not rewritten (its indices are not separable)")
x = torch.randn(1, 2, 6, 6, dtype=torch.float64)
x[0, 0, 1, 1] = float("nan")
x[0, 0, 1, 2] = float("nan")
wv, wi = F.max_pool2d(x, 3, 1, 1, return_indices=True)
gv, gi = rewrite_ops.max_pool(2)(x, [3, 3], [1, 1], [1, 1], [1, 1], False)
ok(torch.equal(torch.isnan(gv), torch.isnan(wv)) and torch.equal(gv.nan_to_num(), wv.nan_to_num()) and torch.equal(gi, wi),
   "max pool with NaN in windows: NaN wins, and its index is torch's", (gi[0, 0, :3, :4], wi[0, 0, :3, :4]))
ok(rewrite_ops.avg_pool(2)(x, [3, 3], [1, 1], [1, 1], False, False, None) is NotImplemented,
   "average pooling without the padding in its count: not rewritten")
ok(rewrite_ops.max_pool(2)(x, [3, 3], [2, 2], [1, 1], [1, 1], True) is NotImplemented, "ceil_mode: not rewritten")

# strided: one forward convolution per phase of the output, interleaved
strided = [
    # nd, N, Cin, Cout, spatial, kernel, stride, padding, output_padding, dilation, groups, bias
    (1, 2, 4, 6, (9,), (3,), (2,), (0,), (0,), (1,), 1, True),
    (1, 1, 4, 4, (8,), (5,), (3,), (2,), (1,), (2,), 2, False),
    (1, 1, 2, 2, (6,), (2,), (4,), (0,), (3,), (1,), 1, True),  # phases no tap reaches: the bias alone
    (2, 2, 4, 6, (7, 9), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), 2, True),
    (2, 1, 3, 3, (6, 5), (4, 3), (2, 3), (1, 0), (0, 2), (1, 2), 3, False),
    (2, 1, 2, 4, (5, 5), (3, 3), (2, 2), (3, 0), (0, 0), (2, 1), 1, True),  # padding crops
    (3, 1, 4, 4, (4, 5, 6), (3, 3, 3), (2, 2, 2), (1, 1, 1), (1, 0, 1), (1, 1, 1), 4, True),
    (3, 2, 2, 4, (3, 4, 5), (3, 2, 3), (2, 1, 3), (1, 0, 2), (0, 0, 1), (2, 1, 1), 2, False),
    (2, 1, 2, 2, (6, 6), (3, 3), (1, 1), (3, 0), (0, 0), (1, 1), 1, True),  # stride 1, padding past the kernel
]
for nd, N, cin, cout, sp, k, st, p, op, d, g, b in strided:
    x = torch.randn(N, cin, *sp, dtype=torch.float64)
    w = torch.randn(cin, cout // g, *k, dtype=torch.float64)
    bias = torch.randn(cout, dtype=torch.float64) if b else None
    want = ct[nd](x, w, bias, stride=st, padding=p, output_padding=op, groups=g, dilation=d)
    got = rewrite_ops.conv_transpose_as_conv(x, w, bias, list(st), list(p), list(d), True, list(op), g)
    same = got is not NotImplemented and got.shape == want.shape and torch.allclose(got, want, rtol=1e-10, atol=1e-10)
    ok(same, f"{nd}-D, kernel {k}, stride {st}, padding {p}, output_padding {op}, dilation {d}, groups {g}: "
       "the phases' forward convolutions, interleaved, equal conv_transpose",
       "NotImplemented" if got is NotImplemented else f"shape {tuple(got.shape)} want {tuple(want.shape)}; "
       f"max diff {float((got - want).abs().max()) if got.shape == want.shape else 'n/a'}")
x = torch.randn(1, 4, 6, 6)
w = torch.randn(4, 4, 3, 3)
ok(rewrite_ops.conv_transpose_as_conv(x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1) is NotImplemented,
   "a forward convolution: not rewritten")

# the linear-reduction fold, an FX pass, on ATen graphs as make_fx traces them
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402


def folded(fn, *args):
    g = make_fx(fn, tracing_mode="fake")(*args)
    n = rewrite_fold.fold_linear_reductions(g.graph)
    g.recompile()
    calls = [x for x in g.graph.nodes if x.op == "call_function"]
    left = sorted({str(x.target) for x in calls})
    # Inductor lowers by each node's fake value: the new nodes carry theirs
    assert all("val" in x.meta for x in calls), "a node without meta['val']"
    # the folded form: a sum over the last axis of x times the summed weights (two tensors)
    aten = torch.ops.aten
    mul_sum = any(x.target == aten.sum.dim_IntList and isinstance(x.args[0], torch.fx.Node)
                  and x.args[0].target == aten.mul.Tensor
                  and all(isinstance(a, torch.fx.Node) for a in x.args[0].args) for x in calls)
    return n, left, mul_sum, g(*args), fn(*args)


x, w, b = (torch.randn(5, 8, dtype=torch.float64), torch.randn(6, 8, dtype=torch.float64),
           torch.randn(6, dtype=torch.float64))
x3 = torch.randn(4, 3, 8, dtype=torch.float64)
cases = [
    ("a linear layer's output divided, summed over its features (keepdim), scaled", 1,
     lambda x, w, b: torch.sum(F.linear(x, w, b) / 2, dim=1, keepdim=True) * 1.5),
    ("a product without bias, summed over the last axis", 1, lambda x, w, b: (x @ w.t()).sum(-1)),
    ("a linear layer's output, its mean over the features", 1, lambda x, w, b: F.linear(x, w, b).mean(dim=1)),
    ("a linear layer on a 3-D input (views around the product), summed over its features", 1,
     lambda x, w, b: F.linear(x.reshape(5, 1, 8).expand(5, 3, 8), w, b).sum(-1) / 4),
    ("a linear layer on a 3-D input, keepdim", 1,
     lambda x, w, b: F.linear(x.reshape(5, 1, 8).expand(5, 3, 8) * 2, w, b).sum(2, keepdim=True)),
    ("a linear layer's output less a vector over the features, its mean (keepdim)", 1,
     lambda x, w, b: torch.mean(F.linear(x, w, b) - w[:, 0], dim=1, keepdim=True)),
    ("a number added and subtracted to a product, summed over the features, scaled", 1,
     lambda x, w, b: ((x @ w.t() + 2.5) * 3 - 1.0).sum(-1)),
    ("a product less a matrix: not folded", 0, lambda x, w, b: (x @ w.t() - x[:, :6]).sum(1)),
    ("a 3-D linear layer summed over its middle axis: not folded", 0,
     lambda x, w, b: F.linear(x.reshape(5, 1, 8).expand(5, 3, 8), w, b).sum(1)),
    ("a product plus a matrix, not a vector over the features: not folded", 0,
     lambda x, w, b: (x @ w.t() + x[:, :6] * 0.5).sum(1)),
    ("a product plus a one-element vector (broadcast over the features): not folded", 0,
     lambda x, w, b: (x @ w.t() + b[:1]).sum(1)),
    ("a square product plus a matrix whose rows are as long as the features: not folded", 0,
     lambda x, w, b: (torch.cat([x, x[:1]]) @ w.t() + w[:, :6]).sum(1)),
    ("a product used twice: not folded", 0, lambda x, w, b: (lambda y: (y.sum(1), y))(x @ w.t())),
    ("a sum over the batch: not folded", 0, lambda x, w, b: F.linear(x, w, b).sum(0)),
    ("a nonlinearity between: not folded", 0, lambda x, w, b: torch.relu(F.linear(x, w, b)).sum(1)),
]
# the batched product (x3 [4, 3, 8] bmm [4, 8, 6]), as torch 2.11 traces a
# linear layer on a 3-D input it cannot fold into one matrix product
bmm_cases = [
    ("a batched product, summed over its features", 1,
     lambda x3, w, b: torch.bmm(x3, w.t().expand(4, 8, 6)).sum(-1)),
    ("a batched product plus a bias, summed over its features, scaled", 1,
     lambda x3, w, b: (torch.bmm(x3, w.t().expand(4, 8, 6)) + b).sum(-1) * 1.5),
    ("a batched product divided, plus a bias, its mean over the features (keepdim)", 1,
     lambda x3, w, b: (torch.bmm(x3, w.t().expand(4, 8, 6)) / 2 + b).mean(2, keepdim=True)),
    ("a batched product plus a bias viewed 2-D, summed over its features", 1,
     lambda x3, w, b: (torch.bmm(x3, w.t().expand(4, 8, 6)) + b).reshape(12, 6).sum(1) / 3),
    ("a linear layer on a 3-D input as torch 2.11 traces it (expand, bmm, _unsafe_view, bias), summed, divided", 1,
     lambda x3, w, b: (torch.ops.aten._unsafe_view.default(torch.bmm(x3[:, :1].expand(4, 3, 8), w.t().expand(4, 8, 6)),
                                                           [4, 3, 6]) + b).sum(-1) / 4),
    ("a batched product with each batch's own weights (x3 @ x3^T), summed over the last axis", 1,
     lambda x3, w, b: torch.bmm(x3, x3.transpose(1, 2)).sum(2)),
    ("a batched product used twice: not folded", 0,
     lambda x3, w, b: (lambda y: (y.sum(-1), y))(torch.bmm(x3, w.t().expand(4, 8, 6)))),
    ("a batched product summed over its middle axis: not folded", 0,
     lambda x3, w, b: torch.bmm(x3, w.t().expand(4, 8, 6)).sum(1)),
]
gemms = ("aten.mm.default", "aten.addmm.default", "aten.bmm.default")
for what, want_n, fn, args in [c + ((x, w, b),) for c in cases] + [c + ((x3, w, b),) for c in bmm_cases]:
    try:
        n_, left, mul_sum, got, want = folded(fn, *args)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        same = all(a.shape == c.shape and torch.allclose(a, c, rtol=1e-10, atol=1e-10) for a, c in zip(got, want))
        mm_left = any(t in gemms for t in left)
        # folded: no matrix product left, nor aten.mv (Inductor cannot lower it
        # after its decompositions), but x times the summed weights, summed
        ok(n_ == want_n and same and (mm_left if want_n == 0 else
                                      not mm_left and "aten.mv.default" not in left and mul_sum),
           f"linear-reduction fold: {what}", f"folded {n_}, ops {left}, mul and sum {mul_sum}, same {same}")
    except Exception as e:
        ok(False, f"linear-reduction fold: {what}", f"{type(e).__name__}: {e}")

# the transposed convolution's spatial mean folded (fold_conv_transpose_means,
# the same variant option): values against the unfolded graph's, no
# convolution left where it folds, the convolution kept where it does not
def tfolded(fn, *args):
    g = make_fx(fn, tracing_mode="fake")(*args)
    n = rewrite_fold.fold_linear_ops(g.graph)
    g.recompile()
    calls = [x for x in g.graph.nodes if x.op == "call_function"]
    assert all("val" in x.meta for x in calls), "a node without meta['val']"
    return n, any("convolution" in str(x.target) for x in calls), g(*args), fn(*args)


t2 = torch.randn(2, 4, 5, 6, dtype=torch.float64)
t3 = torch.randn(2, 4, 3, 4, 5, dtype=torch.float64)
t1 = torch.randn(2, 4, 7, dtype=torch.float64)
w2, w2g = torch.randn(4, 3, 3, 3, dtype=torch.float64), torch.randn(4, 3, 3, 2, dtype=torch.float64)
w3, w1 = torch.randn(4, 6, 2, 3, 2, dtype=torch.float64), torch.randn(4, 5, 3, dtype=torch.float64)
cb, c6 = torch.randn(3, dtype=torch.float64), torch.randn(6, 1, 1, 1, dtype=torch.float64)
rm, rv = torch.randn(6, dtype=torch.float64), torch.rand(6, dtype=torch.float64) + 0.5
tcases = [
    ("a 2-D transposed convolution with bias, its mean over H and W (keepdim), plus a [C, 1, 1] bias, scaled", 1,
     lambda x, w, b: (F.conv_transpose2d(x, w, b).mean((2, 3), keepdim=True) + b.view(3, 1, 1)) * 10.0,
     (t2, w2, cb)),
    ("... strided, dilated, output_padding, grouped, scaled before the mean, twice a mean", 1,
     lambda x, w: (F.conv_transpose2d(x, w, None, stride=2, output_padding=1, groups=2, dilation=2) * 0.5)
     .mean([2, 3], keepdim=True).mean([2, 3], keepdim=True), (t2, w2g)),
    # a batch norm's inference form as Inductor's decomposition leaves it
    # in the post-grad graph: less the mean, times rsqrt(var + eps), times
    # the weight, the parameters unsqueezed to [C, 1, 1, 1]
    ("a 3-D one, times a scale, a batch norm's inference form, then its sum over D, H and W", 1,
     lambda x, w, m, v, g: ((F.conv_transpose3d(x, w) * 2.0 - m[:, None, None, None])
                            * torch.rsqrt(v + 1e-5)[:, None, None, None] * g[:, None, None, None]).sum((2, 3, 4)),
     (t3, w3, rm, rv, c6.view(6))),
    ("a 1-D one less a number, its mean over the length (no keepdim)", 1,
     lambda x, w: (F.conv_transpose1d(x, w, stride=3) - 1.5).mean(-1), (t1, w1)),
    ("a 3-D one plus a per-channel tensor, its sum over the spatial axes", 1,
     lambda x, w, c: (F.conv_transpose3d(x, w) + c).sum([2, 3, 4]), (t3, w3, c6)),
    ("with padding (its cropped border), its mean over H and W", 1,
     lambda x, w, b: F.conv_transpose2d(x, w, b, padding=1).mean((2, 3)), (t2, w2, cb)),
    ("strided, padded, output_padding (the common upsampling), scaled, its mean (keepdim) twice", 1,
     lambda x, w: (F.conv_transpose2d(x, w, None, stride=2, padding=1, output_padding=1) * 0.5)
     .mean([2, 3], keepdim=True).mean([2, 3], keepdim=True), (t2, w2)),
    ("a 3-D one, grouped, dilated, padded more than a tap reaches on one axis, plus a per-channel tensor, summed", 1,
     lambda x, w, c: (F.conv_transpose3d(x, w, None, stride=(1, 2, 3), padding=(1, 1, 3), dilation=(1, 2, 1),
                                         groups=2) + c).sum([2, 3, 4]),
     (t3, torch.randn(4, 3, 2, 3, 2, dtype=torch.float64), c6)),
    ("a 1-D one whose crop leaves a tap no input (length 2, stride 4, padding 2), its sum", 1,
     lambda x, w: F.conv_transpose1d(x, w, stride=4, padding=2).sum(-1), (torch.randn(2, 4, 2, dtype=torch.float64), w1)),
    ("a 1-D one, stride 3, padding 2, output_padding 2, less a number, its mean", 1,
     lambda x, w: (F.conv_transpose1d(x, w, stride=3, padding=2, output_padding=2) - 1.5).mean(-1), (t1, w1)),
    ("a nonlinearity between: not folded", 0,
     lambda x, w, b: torch.relu(F.conv_transpose2d(x, w, b)).mean((2, 3)), (t2, w2, cb)),
    ("a mean over H alone: not folded", 0, lambda x, w, b: F.conv_transpose2d(x, w, b).mean(2), (t2, w2, cb)),
    ("a forward convolution: not folded", 0, lambda x, w: F.conv2d(x, w).mean((2, 3)), (t2, w2.transpose(0, 1))),
    ("plus a tensor that varies over W: not folded", 0,
     lambda x, w, b, r: (F.conv_transpose2d(x, w, b) + r).mean((2, 3)), (t2, w2, cb, torch.randn(8, dtype=torch.float64))),
]
# ... and the sum over a convolution's channels (fold_conv_channel_sums): a
# convolution stays, of one output channel per group
ccases = [
    ("a 3-D transposed convolution's mean over the channels (keepdim), plus a bias of one channel", 1,
     lambda x, w, b, c: F.conv_transpose3d(x, w, b, stride=2, padding=1).mean(1, keepdim=True) + c,
     (t3, w3, c6.view(6), torch.randn(1, 1, 1, 1, dtype=torch.float64))),
    ("a grouped transposed one, scaled and less a number, its sum over the channels", 1,
     lambda x, w: (F.conv_transpose2d(x, w, None, stride=2, groups=2) * 3.0 - 0.5).sum(1), (t2, w2g)),
    ("a forward convolution, grouped, padded, plus a tensor of one channel, its mean over the channels", 1,
     lambda x, w, b, r: (F.conv2d(x, w, b, padding=1, groups=2) + r).mean(dim=1),
     (t2, torch.randn(6, 2, 3, 3, dtype=torch.float64), torch.randn(6, dtype=torch.float64),
      torch.randn(2, 1, 5, 6, dtype=torch.float64))),
    ("plus a tensor that varies over the channels: not folded", 0,
     lambda x, w, c: (F.conv_transpose3d(x, w) + c).mean(1), (t3, w3, c6)),
    ("a sum over the channels and the depth: not folded", 0,
     lambda x, w: F.conv_transpose3d(x, w).sum((1, 2)), (t3, w3)),
]
for what, want_n, fn, targs in ccases:
    try:
        g = make_fx(fn, tracing_mode="fake")(*targs)
        n_ = rewrite_fold.fold_linear_ops(g.graph)
        g.recompile()
        convs = [x for x in g.graph.nodes if x.op == "call_function" and "convolution" in str(x.target)]
        got, want = g(*targs), fn(*targs)
        same = got.shape == want.shape and torch.allclose(got, want, rtol=1e-10, atol=1e-10)
        narrow = [int(c.meta["val"].shape[1]) for c in convs]
        groups = [int(c.args[8]) for c in convs]
        ok(n_ == want_n and same and len(convs) == 1 and (narrow[0] == groups[0]) == (want_n == 1),
           f"convolution channel-sum fold: {what}", f"folded {n_}, output channels {narrow}, groups {groups}, same {same}")
    except Exception as e:
        ok(False, f"convolution channel-sum fold: {what}", f"{type(e).__name__}: {e}")

for what, want_n, fn, targs in tcases:
    try:
        n_, conv_left, got, want = tfolded(fn, *targs)
        same = got.shape == want.shape and torch.allclose(got, want, rtol=1e-10, atol=1e-10)
        ok(n_ == want_n and same and conv_left == (want_n == 0),
           f"transposed-convolution mean fold: {what}", f"folded {n_}, convolution left {conv_left}, same {same}")
    except Exception as e:
        ok(False, f"transposed-convolution mean fold: {what}", f"{type(e).__name__}: {e}")

# what torch.compile gets for a variant: never a mode and options both
from kopt.inductor import compile_settings  # noqa: E402

MODE = {"max-autotune-no-cudagraphs": {"max_autotune": True, "coordinate_descent_tuning": True}}
for what, variant, want in [
    ("a mode alone stays a mode", {"mode": "max-autotune-no-cudagraphs"}, ("max-autotune-no-cudagraphs", {}, {})),
    ("a mode with ATen fallbacks: the mode's options, the graph cache off",
     {"mode": "max-autotune-no-cudagraphs", "aten_fallback": ["aten.sum"]},
     (None, {"max_autotune": True, "coordinate_descent_tuning": True, "fx_graph_cache": False}, {})),
    ("a mode with a rewrite alone: the mode's options, the rewrite apart, the graph cache on",
     {"mode": "max-autotune-no-cudagraphs", "options": {"kopt.pool_as_pointwise": True}},
     (None, {"max_autotune": True, "coordinate_descent_tuning": True}, {"pool_as_pointwise": True})),
    ("a mode with options: the variant's own on top",
     {"mode": "max-autotune-no-cudagraphs", "options": {"coordinate_descent_tuning": False, "freezing": True}},
     (None, {"max_autotune": True, "coordinate_descent_tuning": False, "freezing": True}, {})),
    ("options alone", {"options": {"freezing": True}}, (None, {"freezing": True}, {})),
]:
    got = compile_settings(variant, lambda m: dict(MODE[m]))
    ok(got == want and not (got[0] and got[1]), f"compile settings: {what}", got)

# the profile's graph facts count what the rewrites take (rules/space.c
# adds a rewrite's variant only where they do)
import types  # noqa: E402

from kopt.facts import graph_facts  # noqa: E402


class Facts(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c3 = torch.nn.Conv3d(4, 4, 1)
        self.t = torch.nn.ConvTranspose2d(4, 4, 3, stride=2)
        self.d = torch.nn.Conv2d(4, 8, 3, groups=4)
        self.g = torch.nn.Conv2d(8, 8, 3, groups=2)
        self.c = torch.nn.Conv2d(8, 8, 1)
        self.fc = torch.nn.Linear(8, 6)
        self.tp = torch.nn.ConvTranspose2d(4, 4, 3, padding=1)

    def forward(self, x):
        y = self.c(self.g(self.d(self.t(self.c3(x.unsqueeze(2)).squeeze(2)))))
        y = F.max_pool2d(y, 2) + 0
        z = self.fc(y.mean((2, 3)))
        z3 = self.fc(y.mean(3).transpose(1, 2).contiguous())  # a linear layer on a 3-D input: views, a product, a bias
        zs = (self.fc(y.amax((2, 3))) - self.fc.bias + 1.5).mean(1)  # less a vector, plus a number
        # a transposed convolution's spatial mean, through a scale and a
        # per-channel bias, and a padded one's
        zs = zs + (self.t(x) * 2 + self.t.bias.view(4, 1, 1)).mean((2, 3)).sum() + self.tp(x).mean((2, 3)).sum()
        # a convolution's mean over its channels; over its channels and H, not
        zs = zs + (self.c(y) - 1).mean(1).sum() + self.c(y).mean((1, 2)).sum()
        return F.avg_pool3d(y.unsqueeze(0), 2).sum() + (z / 2).sum(dim=1).sum() + z.sum(0).sum() + z3.sum(2).sum() \
            + z3.sum(1).sum() + z3.mean(1).sum() + zs.sum()


facts = graph_facts(types.SimpleNamespace(model=Facts()), [torch.randn(1, 4, 8, 8)])
ok(facts["convolutions"] == 9 and facts["transposed_convolutions"] == 3 and facts["depthwise_convolutions"] == 1
   and facts["convolutions_3d"] == 1 and facts["poolings"] == 2 and facts["linear_reductions"] == 6
   and facts["strided_reductions"] == 5,
   "graph facts: 9 convolutions, of them 3 transposed, 1 depthwise (a grouped one is not) and 1 forward 3-D, "
   "2 poolings, 3 sums over a linear layer's features (one on a 3-D input, one less a vector plus a number; not "
   "those over its batch or its middle axis), 2 means over a transposed convolution's spatial axes (one padded) "
   "and 1 over a convolution's channels (not one over its channels and H), 5 reductions over axes that leave the "
   "last out (over the batch, over the middle axis twice, over the channels, over the channels and H; not those "
   "over the last axes or over everything)", facts)

# the facts' tracked tensors: by identity, none kept alive
import gc  # noqa: E402
import weakref  # noqa: E402

from kopt.facts import Tracked  # noqa: E402

tr, a, b_ = Tracked(), torch.zeros(3), torch.zeros(3)
tr.add(a)
alive = weakref.ref(a)
ok(tr.has(a) and not tr.has(b_), "graph facts: a tracked tensor is known by itself, another is not")
del a
gc.collect()
ok(alive() is None and not any(r() is not None for r in tr.refs.values()),
   "... and tracking keeps none alive (a freed one's id, taken by a later tensor, is not taken for it)")

# a fact the worker writes that the profile rule's version does not name:
# profiles cached before it would be read as having none of it
with open(os.path.join(top, "rules", "profile.c")) as f:
    _prof = f.read()
_ver = _prof[_prof.index("The rule's version"):_prof.index("#define FACTS_VERSION")]
_missing = sorted(k for k in facts if k not in _ver)
ok(not _missing, "graph facts: each is named at the facts' version (rules/profile.c), which a new one bumps",
   _missing)

# traced as Inductor traces (make_fx with the decomposition table, fake
# tensors): the op is gone from the graph and the graph computes the same
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

table = {}
for name in rewrites.NAMES:
    for op, fn in rewrites._table().get(name, {}).items():
        table.setdefault(op, []).append(fn)
table = {op: rewrites._first(fns) for op, fns in table.items()}
traced = [
    ("a strided grouped 3-D transposed convolution", lambda n: "convolution" in str(n.target) and n.args[6],
     lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
     (torch.randn(1, 4, 4, 5, 6), torch.randn(4, 3, 3, 3, 3), torch.randn(6))),
    ("a depthwise convolution with a channel multiplier", lambda n: "convolution" in str(n.target),
     lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=4),
     (torch.randn(2, 4, 9, 9), torch.randn(8, 1, 3, 3), torch.randn(8))),
    ("a strided one-tap convolution", lambda n: "convolution" in str(n.target),
     lambda x, w, b: F.conv2d(x, w, b, stride=2), (torch.randn(2, 6, 9, 8), torch.randn(5, 6, 1, 1), torch.randn(5))),
    ("a 3-D average pooling", lambda n: "avg_pool3d" in str(n.target), lambda x: F.avg_pool3d(x, 3, 2, 1), (torch.randn(1, 2, 7, 8, 9),)),
    ("a 2-D average pooling over 11 x 11", lambda n: "avg_pool2d" in str(n.target), lambda x: F.avg_pool2d(x, 11, 11),
     (torch.randn(1, 2, 33, 44),)),
    ("a 2-D max pooling with indices", lambda n: "max_pool2d" in str(n.target), lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True),
     (torch.randn(1, 2, 9, 8),)),
]
for what, stays, fn, args in traced:
    try:
        g = make_fx(fn, decomposition_table=table, tracing_mode="fake")(*args)
        left = [n for n in g.graph.nodes if n.op == "call_function" and stays(n)]
        got, want = g(*args), fn(*args)
        pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
        same = all(torch.allclose(a.double(), b.double(), atol=1e-5) for a, b in pairs)
        ok(not left and same, f"{what}: traced with fake tensors, the op is gone and the values are torch's",
           f"left: {left}, same: {same}")
    except Exception as e:
        ok(False, f"{what}: traced with fake tensors", f"{type(e).__name__}: {e}")
# the attention rewrite (fuse_attention, kopt.flash_attention): a softmax
# between two batched products, as Inductor's post-grad graph holds it
# (the softmax decomposed), becomes kopt::attention; its CPU form is the
# unfused one, so the values say the operands and the scale are right
from torch._decomp import get_decompositions  # noqa: E402

aten = torch.ops.aten
soft = get_decompositions([aten._softmax])


def attn_fused(fn, *args):
    g = make_fx(fn, decomposition_table=soft, tracing_mode="fake")(*args)
    n = rewrite_attention.fuse_attention(g.graph)
    g.recompile()
    calls = [x for x in g.graph.nodes if x.op == "call_function"]
    assert all("val" in x.meta for x in calls), "a node without meta['val']"
    left = {str(x.target) for x in calls}
    return n, left, g(*args), fn(*args)


def mha(x, w):  # nn.MultiheadAttention's arithmetic: q scaled first, heads in the batch, 3-D products
    q, k, v = (torch.matmul(x, w[i]).reshape(6, 4, 8).transpose(0, 1) for i in range(3))
    return torch.bmm(torch.softmax(torch.bmm(q * 8 ** -0.5, k.transpose(1, 2)), dim=-1), v).transpose(0, 1)


def sdp(x, w):  # the scaled dot product written out, 4-D, scaled after the product
    q, k, v = (torch.matmul(x, w[i]).reshape(2, 3, 2, 8).transpose(1, 2) for i in range(3))
    return ((q @ k.transpose(-2, -1)) / math.sqrt(8)).softmax(dim=-1) @ v


xa, wa = torch.randn(2, 3, 16), torch.randn(3, 16, 16)
per_batch = torch.tensor([[[False, True, True]] * 3, [[False] * 3] * 3])
attn_cases = [
    ("multi-head attention as nn.MultiheadAttention computes it", 1, mha, (torch.randn(6, 16), torch.randn(3, 16, 32))),
    ("a 4-D scaled dot product written out, divided after the product", 1, sdp, (xa, wa)),
    ("a causal attention (masked_fill with -inf before the softmax, minGPT's form: 4-D, the mask [1, 1, T, T])", 1,
     lambda x, w: (lambda q, k, v: ((q @ k.transpose(-2, -1)) * 0.5).masked_fill(
         torch.ones(3, 3).tril().view(1, 1, 3, 3) == 0, float("-inf")).softmax(-1) @ v)(
         *((x @ w[i]).view(2, 3, 2, 8).transpose(1, 2) for i in range(3))), (xa, wa)),
    ("a mask as where(keep, scores, -inf), 3-D, True keeping a score", 1,
     lambda x, w: (lambda q, k, v: torch.where(torch.ones(3, 3).tril() > 0, q @ k.transpose(-2, -1),
                                               torch.tensor(float("-inf"))).softmax(-1) @ v)(
         x @ w[0], x @ w[1], x @ w[2]), (xa, wa)),
    ("a mask that leaves out a whole row: that row NaN, as torch's", 1,
     lambda x, w: (lambda q, k, v: (q @ k.transpose(-2, -1)).masked_fill(
         torch.tensor([[True] * 3, [False] * 3, [False, True, False]]), float("-inf")).softmax(-1) @ v)(
         x @ w[0], x @ w[1], x @ w[2]), (xa, wa)),
    ("a mask before a negative scale (its -inf made +inf): not fused", 0,
     lambda x, w: (lambda q, k, v: ((q @ k.transpose(-2, -1)).masked_fill(torch.ones(3, 3).tril() == 0, float("-inf"))
                                   * -0.5).softmax(-1) @ v)(x @ w[0], x @ w[1], x @ w[2]), (xa, wa)),
    ("a mask after a negative scale: fused", 1,
     lambda x, w: (lambda q, k, v: ((q @ k.transpose(-2, -1)) * -0.5).masked_fill(
         torch.ones(3, 3).tril() == 0, float("-inf")).softmax(-1) @ v)(x @ w[0], x @ w[1], x @ w[2]), (xa, wa)),
    ("a mask that differs between batches: not fused", 0,
     lambda x, w, m: (lambda q, k, v: (q @ k.transpose(-2, -1)).masked_fill(
         m, float("-inf")).softmax(-1) @ v)(x @ w[0], x @ w[1], x @ w[2]), (xa, wa, per_batch)),
    ("a mask filled with -1e9 rather than -inf: not fused", 0,
     lambda x, w: (lambda q, k, v: (q @ k.transpose(-2, -1)).masked_fill(torch.ones(3, 3).tril() == 0, -1e9)
                   .softmax(-1) @ v)(x @ w[0], x @ w[1], x @ w[2]), (xa, wa)),
    ("a softmax over the queries' axis: not fused", 0,
     lambda x, w: (lambda q, k, v: (q @ k.transpose(-2, -1)).softmax(-2) @ v)(x @ w[0], x @ w[1], x @ w[2]), (xa, wa)),
    ("attention whose probabilities are returned too: not fused", 0,
     lambda x, w: (lambda q, k, v: (lambda p: (p @ v, p))((q @ k.transpose(-2, -1)).softmax(-1)))(
         x @ w[0], x @ w[1], x @ w[2]), (xa, wa)),
    ("attention in float64: not fused (the kernel is float32's)", 0, sdp, (xa.double(), wa.double())),
    ("a softmax over rows regrouped by a view (half a row each): not fused", 0,
     lambda x, w: (lambda q, k, v: (q @ k.transpose(-2, -1)).reshape(2, 6, 2).softmax(-1).reshape(2, 3, 4) @ v)(
         x @ w[0], torch.cat([x, x[:, :1]], 1) @ w[1], torch.cat([x, x[:, :1]], 1) @ w[2]), (xa, wa)),
]
for what, want_n, fn, args in attn_cases:
    try:
        n_, left, got, want = attn_fused(fn, *args)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        same = all(a.shape == c.shape and torch.allclose(a, c, rtol=1e-5, atol=1e-6, equal_nan=True)
                   for a, c in zip(got, want))
        has_op = "kopt.attention.default" in left
        ok(n_ == want_n and same and has_op == (want_n > 0) and (want_n == 0 or "aten.amax.default" not in left),
           f"attention rewrite: {what}", f"fused {n_}, ops {sorted(left)}, same {same}")
    except Exception as e:
        ok(False, f"attention rewrite: {what}", f"{type(e).__name__}: {e}")
class AttnFacts(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(16, 2)

    def forward(self, x, w):
        a, _ = self.mha(x, x, x)  # as nn.MultiheadAttention computes it: counted
        b = sdp(x[:3].transpose(0, 1), w)  # written out, 4-D: counted
        xt = x.transpose(0, 1)
        q, k, v = xt @ w[0], xt @ w[1], xt @ w[2]
        c = (q @ k.transpose(-2, -1)).masked_fill(torch.ones(6, 6).tril() == 0, float("-inf")).softmax(-1) @ v
        f = (q @ k.transpose(-2, -1)).masked_fill(torch.rand(2, 6, 6) > 0.5, float("-inf")).softmax(-1) @ v
        d = (q @ k.transpose(-2, -1)).softmax(-2) @ v  # over the queries: not
        e = sdp(x[:3].transpose(0, 1).double(), w.double())  # float64: not
        return a.sum() + b.sum() + c.sum() + d.sum() + e.sum() + f.sum()


afacts = graph_facts(types.SimpleNamespace(model=AttnFacts().eval()), [torch.randn(6, 2, 16), wa])
ok(afacts["attentions"] == 3,
   "graph facts: 3 attentions (nn.MultiheadAttention's, one written out in 4-D, a causal one; not one whose mask "
   "differs between batches, not a softmax over the queries, not one in float64)", afacts)

# a product read in part (slice_products, kopt.sliced_product): the product
# of the rows and columns read alone, the view taken of it


def sliced(fn, *args):
    g = make_fx(fn, tracing_mode="fake")(*args)
    n = rewrite_slice.slice_products(g.graph)
    g.recompile()
    calls = [x for x in g.graph.nodes if x.op == "call_function"]
    assert all("val" in x.meta for x in calls), "a node without meta['val']"
    prods = [tuple(x.meta["val"].shape) for x in calls if x.target in (aten.mm.default, aten.addmm.default,
                                                                       aten.bmm.default)]
    return n, prods, g(*args), fn(*args)


ds, ss = torch.randn(4, 8, 3, 3, dtype=torch.float64), torch.randn(4, 3, 8, 64, 16, dtype=torch.float64)
x5, w5, b5 = torch.randn(5, 7, 8, dtype=torch.float64), torch.randn(6, 8, dtype=torch.float64), \
    torch.randn(6, dtype=torch.float64)
slice_cases = [
    ("Mamba's last chunk state (an einsum's output, permuted, its last chunk selected): one row of each batch", 1,
     [(32, 1, 1024)], lambda d, s: torch.einsum("bhzc,bchpn->bzhpn", d, s)[:, -1], (ds, ss)),
    ("a linear layer on a sequence, its last position: one row in seven, read with its step", 1, [(5, 6)],
     lambda x, w, b: F.linear(x, w, b)[:, -1, :], (x5, w5, b5)),
    ("a product's rows 3 to 8", 1, [(6, 6)], lambda x, w, b: (x.reshape(35, 8) @ w.t())[3:9], (x5, w5, b5)),
    ("a product's third column: one column of the right operand", 1, [(35, 1)],
     lambda x, w, b: (x.reshape(35, 8) @ w.t())[:, 2], (x5, w5, b5)),
    ("a linear layer's features 1 to 3: its bias's too", 1, [(35, 3)],
     lambda x, w, b: F.linear(x.reshape(35, 8), w, b)[:, 1:4], (x5, w5, b5)),
    ("a batched product's block of rows and columns", 1, [(5, 2, 3)],
     lambda x, w, b: torch.bmm(x, x.transpose(1, 2))[:, 1:3, 2:5], (x5, w5, b5)),
    ("a batched product's every other row", 1, [(5, 4, 7)], lambda x, w, b: torch.bmm(x, x.transpose(1, 2))[:, ::2],
     (x5, w5, b5)),
    ("a transposed batched product's last row: a column of the product", 1, [(5, 7, 1)],
     lambda x, w, b: torch.bmm(x, x.transpose(1, 2)).transpose(1, 2)[:, -1], (x5, w5, b5)),
    ("a product read in part and used whole too: not shrunk", 0, [(35, 6)],
     lambda x, w, b: (lambda y: (y[:, 0], y))(x.reshape(35, 8) @ w.t()), (x5, w5, b5)),
    ("a batched product's batches 1 and 2 (batches are not shrunk)", 0, [(5, 7, 7)],
     lambda x, w, b: torch.bmm(x, x.transpose(1, 2))[1:3], (x5, w5, b5)),
    ("a product read whole through views: not shrunk", 0, [(35, 6)],
     lambda x, w, b: (x.reshape(35, 8) @ w.t()).reshape(5, 7, 6).transpose(1, 2), (x5, w5, b5)),
    ("a part of a reshape that copies (a transposed product flattened): not shrunk", 0, [(35, 6)],
     lambda x, w, b: (x.reshape(35, 8) @ w.t()).t().reshape(210)[:6], (x5, w5, b5)),
]
for what, want_n, want_prods, fn, args in slice_cases:
    try:
        n_, prods, got, want = sliced(fn, *args)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        same = all(a.shape == c.shape and torch.allclose(a, c, rtol=1e-10, atol=1e-10) for a, c in zip(got, want))
        ok(same and n_ == want_n and prods == [tuple(e) for e in want_prods], f"sliced product: {what}",
           f"shrunk {n_}, products {prods}, same {same}")
    except Exception as e:
        ok(False, f"sliced product: {what}", f"{type(e).__name__}: {e}")


class SliceFacts(torch.nn.Module):
    def forward(self, d, s, x, w):
        a = torch.einsum("bhzc,bchpn->bzhpn", d, s)[:, -1]  # counted
        y = x.reshape(35, 8) @ w.t()
        return a.sum() + y[:, 2].sum() + y.sum() + (x @ x.transpose(1, 2)).transpose(1, 2).sum()


sfacts = graph_facts(types.SimpleNamespace(model=SliceFacts()), [ds, ss, x5, w5])
ok(sfacts["sliced_products"] == 2,
   "graph facts: 2 products read in part (the einsum's last chunk, a product's column; not a product read whole "
   "through views)", sfacts)

done()
