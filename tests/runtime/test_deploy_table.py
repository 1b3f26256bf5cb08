"""tests/runtime/test_deploy_table.py: the deployment's table and its check
(kopt.deploy), on the CPU with any torch: a table's parts, absent ones
empty (reading a sealed table is kopt.seal's and test_deploy_shapes'); a kernel's source from its entry or the
kernel's own; which outputs are the same (shapes, dtypes, integers exactly,
floats within the gates' tolerances, the half types' own); the check of the
swaps: all kept when the outputs agree, the one that changes them put back
(with a warning naming it), all of them when only their sum does; which
of an output module's kernels are swapped in (in the table, held by the
module, passing gate 1 here) and with what (the table's source or the
kernel's own, its config, none for an empty one). The
modules and kernels swapped are plain objects made here (TEST DOUBLES of
Inductor's output modules). Prints TAP."""
import os
import sys
import tempfile
import types
import warnings

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

import torch  # noqa: E402

from kopt import deploy as D  # noqa: E402

torch.cuda.synchronize = lambda *a, **k: None  # a CPU run: nothing to wait for

d = tempfile.mkdtemp()
t = D.Table(os.path.join(d, "substitutions.json"), {"variant": {"mode": "max-autotune"}, "kernels": {"h1": {"source": "s"}},
                                                    "gates": {"atol": 1e-3}})
ok(t.path == os.path.join(d, "substitutions.json") and t.variant == {"mode": "max-autotune"} and
   t.kernels == {"h1": {"source": "s"}} and t.gates == {"atol": 1e-3} and t.seen == 0 and not t.hits and
   not t.swaps and not t.reverted and t.shape is None and t.inputs == [],
   "Table: each part of the table as written, nothing hit, swapped or put back yet")
t2 = D.Table(os.path.join(d, "other.json"), {"kernels": None})
ok(t2.variant == {} and t2.kernels == {} and t2.gates == {}, "Table: parts absent or null are empty")


def table():
    return D.Table(os.path.join(d, "substitutions.json"), {"gates": {}})


decl = types.SimpleNamespace(name="k", source="own source")
ok(D.edited_source(decl, {"source": "table's"}) == "table's" and D.edited_source(decl, {}) == "own source" and
   D.edited_source(decl, {"source": "", "config": {}}) == "own source",
   "edited_source: the entry's source, else the kernel's own (a pinned config alone)")

f32 = torch.tensor([1.0, 2.0, 4.0])
gates = {"atol": 1e-4, "rtol": 1e-4, "atol_half": 1e-2, "rtol_half": 1e-2}
cases = [
    ([f32], [f32.clone()], gates, True),
    ([f32], [f32 + 5e-5], gates, True),
    ([f32], [f32 + 1e-3], gates, False),
    ([f32], [f32 + 1e-3], {"atol": 2e-3, "rtol": 0}, True),
    ([f32], [f32 + 5e-5], {}, True),                       # the default 1e-4
    ([f32], [f32 + 5e-4], {}, False),
    ([f32], [f32, f32], gates, False),
    ([f32], [torch.tensor([1.0, 2.0])], gates, False),
    ([f32], [f32.double()], gates, False),
    ([torch.tensor([1, 2])], [torch.tensor([1, 2])], gates, True),
    ([torch.tensor([1, 2])], [torch.tensor([1, 3])], {"atol": 10, "rtol": 10}, False),
    ([f32.half()], [(f32 + 5e-3).half()], gates, True),     # the half tolerance
    ([f32.half()], [(f32 + 5e-3).half()], {}, True),        # the half default 1e-2
    ([f32.half()], [(f32 + 0.1).half()], gates, False),
    ([torch.tensor([float("nan")])], [torch.tensor([float("nan")])], gates, True),
]
# the defaults at their edges: atol 1e-4 and rtol 1e-4, 1e-2 and 1e-2 for the half types
z, big = torch.zeros(1), torch.full((1,), 100.0)
cases += [
    ([z], [z + 0.7e-4], {}, True), ([z], [z + 1.5e-4], {}, False),
    ([big], [big + 0.007], {}, True), ([big], [big + 0.015], {}, False),
    ([z.half()], [(z + 0.007).half()], {}, True), ([z.half()], [(z + 0.015).half()], {}, False),
    ([(z + 10).half()], [(z + 10.08).half()], {}, True), ([(z + 10).half()], [(z + 10.13).half()], {}, False),
]
got = [D.same_outputs(r, o, g) for r, o, g, _ in cases]
ok(got == [w for *_, w in cases], "same_outputs: count, shapes and dtypes alike, integers equal, floats within the "
   "gates' atol and rtol (the half types' own; 1e-4 and 1e-2 by default), NaN where NaN", got)


def swapped(table, names):
    """a module holding kernels a0.. and the swaps to b0..; run adds each
    kernel's offset to x (the new one of a bad kernel its own)"""
    mod = types.ModuleType("out")
    for n in names:
        mod.__dict__["k_" + n] = 0.0
        table.swaps.append(D.Swapped(mod, "k_" + n, n, 0.0, 0.5 if n.startswith("bad") else 0.0))
        mod.__dict__["k_" + n] = table.swaps[-1].new

    def run(args):
        return [args[0] + sum(mod.__dict__["k_" + n] for n in names)]
    return mod, run


for names, want_back, what in (
        (["k0", "k1"], [], "outputs alike: every swap kept"),
        (["k0", "bad1", "k2"], ["bad1"], "the swap that changes the outputs goes back, the others kept"),
        (["bad0", "bad1"], ["bad0", "bad1"], "each changing them: both go back")):
    t = table()
    mod, run = swapped(t, names)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        D.check_swaps(t, run, [torch.zeros(3)])
    used = {s.name: mod.__dict__[s.var] == s.new for s in t.swaps}
    ok(t.reverted == want_back and all(used[n] == (n not in want_back) for n in names) and
       len(w) == len(want_back) and all(n in str(x.message) for n, x in zip(want_back, w)),
       "check_swaps: " + what + (", a warning names each" if want_back else ""), (t.reverted, used, [str(x.message) for x in w]))

t = table()
mod = types.ModuleType("out")
mod.a = mod.b = 0.0
t.swaps = [D.Swapped(mod, "a", "a", 0.0, 0.25), D.Swapped(mod, "b", "b", 0.0, -0.25)]


def run_pair(args):  # each alone changes the outputs; together they cancel out
    return [args[0] + mod.a + mod.b]


with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    D.check_swaps(t, run_pair, [torch.zeros(2)])
ok(t.reverted == [] and mod.a == 0.25 and mod.b == -0.25, "check_swaps: swaps that agree together are kept together")


def run_sum(args):  # together they change the outputs; each alone does not
    return [args[0] + (1.0 if mod.a and mod.b else 0.0)]


t = table()
mod.a = mod.b = mod.c = 0.0
t.swaps = [D.Swapped(mod, "a", "a", 0.0, 0.25), D.Swapped(mod, "b", "b", 0.0, -0.25),
           D.Swapped(mod, "c", "c", 0.0, 1.0)]  # c changes nothing
with warnings.catch_warnings(record=True):
    warnings.simplefilter("always")
    D.check_swaps(t, run_sum, [torch.zeros(2)])
ok(t.reverted == ["a", "b", "c"] and mod.a == 0.0 and mod.b == 0.0 and mod.c == 0.0,
   "check_swaps: swaps that change the outputs only together, each alone against Inductor's: none is trusted, "
   "a third that changes nothing neither")
D.check_swaps(t, run_sum, [torch.zeros(2)])
ok(mod.a == 0.0 and mod.b == 0.0, "check_swaps: swaps put back are not tried again")
# swap_into: an output module's kernels, each found in the table by its
# source's hash, the table's source loaded in its place (kernels.load_kernel,
# a TEST DOUBLE here that records its arguments) when gate 1 passes it here
static = os.path.join(top, "tests", "static")
orig_src = open(os.path.join(static, "orig", "per_softmax4.py")).read()
good_src = open(os.path.join(static, "good", "per_softmax4_tl_max.py")).read()
other_src = orig_src.replace("triton_per_fused__softmax_exp_prepare_softmax_online_sub_4", "other_kernel")
third_src = orig_src.replace("triton_per_fused__softmax_exp_prepare_softmax_online_sub_4", "third_kernel")
absent_src = orig_src.replace("triton_per_fused__softmax_exp_prepare_softmax_online_sub_4", "absent_kernel")
decl = "{} = async_compile.triton('{}', \'\'\'{}\'\'\', device_str='cuda')\n"
code = (decl.format("k_good", "triton_per_fused__softmax_exp_prepare_softmax_online_sub_4", orig_src) +
        decl.format("k_bad", "other_kernel", other_src) + decl.format("k_none", "third_kernel", third_src) +
        decl.format("k_absent", "absent_kernel", absent_src))
h = lambda src: D.K.source_hash(src)
codef = os.path.join(d, "output_code.py")
with open(codef, "w") as f:
    f.write(code)
loads = []
real_load = D.K.load_kernel
D.K.load_kernel = lambda name, src, tag, cfg: loads.append((name, src, tag, cfg)) or ("loaded", name)
mod = types.SimpleNamespace(__file__=codef, k_good="inductor good", k_bad="inductor bad", k_none="inductor none")
t = D.Table(os.path.join(d, "substitutions.json"), {"kernels": {
    h(orig_src): {"source": good_src, "config": {"XBLOCK": 8}},
    h(other_src): {"source": "import triton\n"},
    h(absent_src): {"source": good_src}}})
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    D.swap_into(mod, t)
ok(t.seen == 4 and t.hits == {h(orig_src)} and len(t.swaps) == 1 and mod.k_good == ("loaded", "triton_per_fused__softmax_exp_prepare_softmax_online_sub_4")
   and mod.k_bad == "inductor bad" and mod.k_none == "inductor none",
   "swap_into: of four kernels seen, the one in the table whose source passes gate 1 here is swapped in; one that "
   "fails it, one not in the table and one the module does not hold are not", (t.seen, t.hits, mod))
ok(loads == [("triton_per_fused__softmax_exp_prepare_softmax_online_sub_4", good_src, "kopt " + h(orig_src), {"XBLOCK": 8})],
   "swap_into: the table's source is loaded with the kernel's name, its hash and its config", loads)
s0 = t.swaps[0]
ok(s0.var == "k_good" and s0.old == "inductor good" and s0.new == mod.k_good, "swap_into: the swap keeps what it replaced")
s0.use(False)
ok(mod.k_good == "inductor good", "a swap put back restores Inductor's kernel")
s0.use(True)
ok([str(x.message).startswith("kopt: the optimized other_kernel fails gate 1 here (") for x in w] == [True],
   "swap_into: the kernel that fails gate 1 here is named in one warning", [str(x.message) for x in w])
loads.clear()
t2 = D.Table(os.path.join(d, "substitutions.json"), {"kernels": {h(orig_src): {"source": good_src, "config": {}}}})
mod2 = types.SimpleNamespace(__file__=codef, k_good="inductor good")
D.swap_into(mod2, t2)
ok(len(loads) == 1 and loads[0][3] is None, "swap_into: an empty config is none", loads)
t3 = D.Table(os.path.join(d, "substitutions.json"), {"kernels": {h(orig_src): {}}})
loads.clear()
D.swap_into(types.SimpleNamespace(__file__=codef, k_good="x"), t3)
ok(len(loads) == 1 and loads[0][1] == orig_src, "swap_into: an entry without a source loads the kernel's own (gate 1 not asked)")
t4 = D.Table(os.path.join(d, "substitutions.json"), {"kernels": {h(orig_src): {"source": good_src}}})
D.swap_into(types.SimpleNamespace(k_good="x"), t4)
ok(t4.seen == 0 and not t4.swaps, "swap_into: a module without a file is left alone")
D.K.load_kernel = real_load
done()
