"""tests/runtime/test_verify_decisions.py: the decisions the worker's
verify makes before koptmake's gates see the numbers, on the CPU with any
torch: which tolerance applies to which dtype; what compare_output reports
of one output (each structural flag, NaN and inf where they differ, the
largest absolute and relative errors, within tolerance or not, integer
outputs exactly); allclose64 and rmse; which seed fails for certain (no
later seed or float64 fallback can undo it); the quantiles gate 4 stops on
(gates/perf.c's interpolation) and when more pairs would not change its
decision; finite's clamping; which errors leave the device unusable;
measure's and stitch's answers without a timing; not_searched; the order
of static_check's reasons. Prints TAP."""
import contextlib
import math
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

import torch  # noqa: E402

from kopt import gate_rules as G  # noqa: E402
from kopt import verify as V  # noqa: E402

if not hasattr(torch.Tensor, "untyped_storage"):
    # a test shim: Debian's torch 1.13 calls it storage(), with the same
    # data_ptr() and nbytes() for what compare_output asks of it
    torch.Tensor.untyped_storage = lambda self: self.storage()

GATES = {"atol": 1e-4, "rtol": 1e-3, "atol_half": 1e-2, "rtol_half": 2e-2, "fp64_fallback": True}

ok(V.tolerance(GATES, "float32") == (1e-4, 1e-3) and V.tolerance(GATES, None) == (1e-4, 1e-3) and
   V.tolerance(GATES, "float16") == (1e-2, 2e-2) and V.tolerance(GATES, "bfloat16") == (1e-2, 2e-2) and
   V.tolerance(GATES, "float64") == (1e-4, 1e-3),
   "tolerance: the half types take atol_half and rtol_half, every other dtype atol and rtol")

ok([V.finite(x) for x in (None, float("nan"), float("inf"), float("-inf"), 2.5, 0, -3)] ==
   [None, None, 1e300, -1e300, 2.5, 0.0, -3.0], "finite: NaN is none, infinities are clamped, numbers kept")

b = torch.tensor([1.0, 2.0, 4.0, 0.0])


def cmp(c, base=b, spans=(), gates=GATES):
    return V.compare_output(3, base, c, list(spans), gates)


r = cmp(b.clone())
ok(r["index"] == 3 and r["dtype"] == "float32" and r["allclose"] and r["max_abs"] == 0.0 and r["max_rel"] == 0.0 and
   r["ref_max_abs"] == 4.0 and not any(r[f] for f in V.STRUCTURAL), "compare_output: the same values: allclose, no flag",
   r)
r = cmp(torch.tensor([1.0, 2.0, 4.0004, 0.0]))
ok(r["allclose"] and abs(r["max_abs"] - 4e-4) < 1e-6 and abs(r["max_rel"] - 1e-4) < 1e-6,
   "compare_output: within atol + rtol * |ref| (4e-4 at 4.0): allclose, its errors reported", r)
r = cmp(torch.tensor([1.0, 2.0, 4.006, 0.0]))
ok(not r["allclose"] and abs(r["max_abs"] - 6e-3) < 1e-5 and not r["nan_mismatch"],
   "compare_output: beyond it (6e-3 at 4.0): not allclose", r)
r = cmp(torch.tensor([1.0, 2.0, 4.0, 5e-5]))
ok(r["allclose"] and abs(r["max_abs"] - 5e-5) < 1e-9 and r["max_rel"] == 0.0,
   "compare_output: an error where the reference is 0 counts in max_abs, not in max_rel", r)
r = cmp(torch.tensor([1.0, 2.0]))
ok(r["shape_mismatch"] and not r["allclose"], "compare_output: another shape", r)
r = cmp(None)
ok(r["shape_mismatch"] and not r["allclose"], "compare_output: a missing output is a shape mismatch", r)
r = cmp(b.double())
ok(r["dtype_mismatch"] and r["allclose"], "compare_output: another dtype, the same values: dtype_mismatch", r)
wide = torch.zeros(4, 2)
wide[:, 0] = b
r = cmp(wide[:, 0])
ok(r["stride_mismatch"] and r["allclose"], "compare_output: another stride: stride_mismatch", r)
inp = torch.tensor([1.0, 2.0, 4.0, 0.0])
s = inp.untyped_storage()
r = cmp(inp, spans=[(s.data_ptr(), s.data_ptr() + s.nbytes())])
ok(r["aliases_input"], "compare_output: an output in an input's storage aliases it", r)
r = cmp(b.clone(), spans=[(s.data_ptr(), s.data_ptr() + s.nbytes())])
ok(not r["aliases_input"], "compare_output: an output of its own storage aliases no input", r)
own = b.clone()
p0 = own.untyped_storage().data_ptr()
r = cmp(own, spans=[(p0 - 16, p0)])
ok(not r["aliases_input"], "compare_output: an output right after an input's storage does not alias it", r)
r = cmp(torch.tensor([0.5, 0.25, 4.0, 0.0]), base=torch.tensor([0.5, 0.2505, 4.0, 0.0]))
ok(abs(r["max_rel"] - 0.0005 / 0.2505) < 1e-6, "compare_output: the relative error counts for references under 1", r)
nb = torch.tensor([1.0, float("nan"), float("inf"), float("-inf")])
r = cmp(nb.clone(), base=nb)
ok(r["allclose"] and not r["nan_mismatch"] and not r["inf_mismatch"],
   "compare_output: NaN and infinities where the reference has them: no mismatch", r)
r = cmp(torch.tensor([1.0, 2.0, float("inf"), float("-inf")]), base=nb)
ok(r["nan_mismatch"] and not r["inf_mismatch"], "compare_output: a NaN gone: nan_mismatch", r)
r = cmp(torch.tensor([1.0, float("nan"), float("-inf"), float("-inf")]), base=nb)
ok(r["inf_mismatch"] and not r["nan_mismatch"], "compare_output: an infinity of the other sign: inf_mismatch", r)
r = cmp(torch.tensor([1.0, float("nan"), float("inf"), 7.0]), base=nb)
ok(r["inf_mismatch"], "compare_output: an infinity gone: inf_mismatch", r)
h = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float16)
r = V.compare_output(0, h, torch.tensor([1.0, 2.0, 4.04], dtype=torch.float16), [], GATES)
ok(r["dtype"] == "float16" and r["allclose"], "compare_output: a half output takes the half tolerance", r)
i32 = torch.tensor([1, 2, 3], dtype=torch.int32)
r = V.compare_output(0, i32, i32.clone(), [], GATES)
ok(r["allclose"] and r["max_abs"] == 0.0, "compare_output: integers equal: allclose", r)
r = V.compare_output(0, i32, torch.tensor([1, 2, 4], dtype=torch.int32), [], GATES)
ok(not r["allclose"] and r["max_abs"] == 1.0, "compare_output: integers that differ at all: not allclose", r)

ok(V.allclose64(b, b + 5e-5, 1e-4, 0.0) and not V.allclose64(b, b + 2e-4, 1e-4, 0.0) and
   V.allclose64(b, b * 1.0005, 0.0, 1e-3) and not V.allclose64(b, b * 1.002, 0.0, 1e-3),
   "allclose64: atol and rtol, each alone")
ok(abs(V.rmse([b], [b + 0.5]) - 0.5) < 1e-12 and V.rmse([b], [b]) == 0.0 and V.rmse([i32], [i32 + 1]) == 0.0 and
   abs(V.rmse([torch.tensor([0.0, 0.0])], [torch.tensor([3.0, float("nan")])]) - 3.0) < 1e-12 and
   abs(V.rmse([torch.zeros(2), torch.zeros(2)], [torch.full((2,), 3.0), torch.full((2,), 4.0)]) -
       math.sqrt(12.5)) < 1e-12,
   "rmse: over every float element of every output, non-finite differences and integer outputs left out")


def out(**flags):
    o = {f: False for f in V.STRUCTURAL}
    o["allclose"] = True
    o.update(flags)
    return o


no_fb = dict(GATES, fp64_fallback=False)
cases = [([out()], False, GATES, False), ([out()], True, GATES, True), ([out(allclose=False)], False, GATES, False),
         ([out(allclose=False)], False, no_fb, True), ([out(), out()], False, no_fb, False)]
cases += [([out(), out(**{f: True})], False, GATES, True) for f in V.STRUCTURAL]
ok([V.certain_failure(o, m, g) for o, m, g, _ in cases] == [w for *_, w in cases],
   "certain_failure: an input modified or any structural flag fails for certain; beyond tolerance only without "
   "the fp64 fallback")

xs = [4.0, 1.0, 3.0, 2.0, 5.0]
ok(G._quantile(xs, 0.0) == 1.0 and G._quantile(xs, 1.0) == 5.0 and G._quantile(xs, 0.5) == 3.0 and
   G._quantile(xs, 0.25) == 2.0 and G._quantile([1.0, 2.0], 0.25) == 1.25 and G._quantile([7.0], 0.75) == 7.0 and
   G._quantile([1.0, 2.0, 3.0, 4.0], 0.75) == 3.25 and G._quantile([1.0, 2.0, 3.0, 4.0], 0.25) == 1.75,
   "_quantile: linear between order statistics, as gates/perf.c")


def perf(base, cand, mbase, mcand):
    n = len(mbase)
    return {"base_ns": base, "cand_ns": cand, "model_base_ns": mbase, "model_base_dev_ns": [0.0] * n,
            "model_cand_dev_ns": [0.0] * n, "model_cand_ns": mcand}


fast = perf([100.0] * 8, [80.0] * 8, [1000.0] * 8, [1000.0] * 8)
ok(V.perf_decided(fast, 1.03, "k") == "pass", "perf_decided: every kernel pair 1.25x, the model not slower: pass")
slow = perf([100.0] * 8, [99.0] * 8, [1000.0] * 8, [1000.0] * 8)
ok(V.perf_decided(slow, 1.03, "k") == "fail", "perf_decided: every pair 1.01x < gamma 1.03: fail")
close = perf([100.0] * 4 + [100.0] * 4, [98.0] * 4 + [94.0] * 4, [1000.0] * 8, [1000.0] * 8)
ok(V.perf_decided(close, 1.03, "k") is None, "perf_decided: lower quartile under gamma, upper over: undecided")
edge = perf([103.0] * 8, [100.0] * 8, [1000.0] * 8, [1000.0] * 8)
ok(V.perf_decided(edge, 1.03, "k") == "pass", "perf_decided: a lower quartile of exactly gamma passes")
mslow = dict(fast)
mslow["model_base_dev_ns"] = [0.0] * 8
mslow["model_cand_dev_ns"] = [100.0] * 8  # the candidate's model 100 ns slower on the device
ok(V.perf_decided(mslow, 1.03, "k") == "fail", "perf_decided: a faster kernel in a clearly slower model: fail")
half = dict(fast)
half["model_cand_dev_ns"] = [100.0] * 4 + [0.0] * 4
half["model_base_dev_ns"] = [0.0] * 8
most = dict(half)
most["model_cand_dev_ns"] = [100.0] * 6 + [0.0] * 2
ok(V.perf_decided(half, 1.03, "k") == "pass" and V.perf_decided(most, 1.03, "k") == "fail",
   "perf_decided: a model slower in half the pairs is not clearly slower (its upper quartile 1.0); in six of "
   "eight it is")
model = perf([], [], [1000.0] * 6, [1000.0] * 6)
model["model_base_dev_ns"] = [900.0] * 6
model["model_cand_dev_ns"] = [800.0] * 6
ok(V.perf_decided(model, 1.1, None) == "pass" and V.perf_decided(model, 1.2, None) == "fail",
   "perf_decided for a model (a stitch): the model's pairs, host time held at the baseline's, against gamma")
low = perf([100.0] * 8, [120.0] * 8, [1000.0] * 8, [1000.0] * 8)
ok(V.perf_decided(low, 1.03, "k") == "fail", "perf_decided: a kernel slower in every pair (0.83x): fail")
two = perf([50.0, 50.0] + [125.0] * 6, [100.0] * 8, [1000.0] * 8, [1000.0] * 8)
ok(V.perf_decided(two, 1.03, "k") == "pass", "perf_decided: two pairs of eight at 0.5x, a lower quartile of "
   "1.06x: pass")
lenient = perf([], [], [1000.0] * 6, [1000.0] * 6)
lenient["model_base_dev_ns"] = [900.0] * 6
lenient["model_cand_dev_ns"] = [950.0] * 6
ok(V.perf_decided(lenient, 0.9, None) == "pass", "perf_decided for a model, gamma 0.9: a model at 0.95x passes")
zero = perf([], [], [0.0] * 4, [0.0] * 4)
zero["model_cand_dev_ns"] = [5.0] * 4
ok(V.perf_decided(zero, 1.03, None) is None, "perf_decided: a model ratio of zero decides nothing")
bad = perf([100.0, 0.0], [80.0, 80.0], [1000.0, 1000.0], [1000.0, 1000.0])
ok(V.perf_decided(bad, 1.03, "k") is None and V.perf_decided(perf([1.0], [0.0], [1.0], [1.0]), 1.03, "k") is None and
   V.perf_decided(perf([1.0], [1.0], [None], [1.0]), 1.03, "k") is None,
   "perf_decided: a time of zero or none decides nothing")

ok(V.is_sticky(RuntimeError("CUDA error: an illegal memory access was encountered")) and
   V.is_sticky(RuntimeError("unspecified launch failure")) and V.is_sticky(RuntimeError("misaligned address")) and
   V.is_sticky(RuntimeError("device-side assert triggered")) and not V.is_sticky(RuntimeError("out of memory")) and
   not V.is_sticky(ValueError("shape mismatch")),
   "is_sticky: the errors that leave the device unusable, and no others")


class Refs:
    def __init__(self, ref):
        self.ref = ref

    def fp64(self, seed):
        return self.ref


ref = [torch.tensor([3.0, 4.0], dtype=torch.float64), torch.tensor([1, 2]), torch.tensor([1.0, 1.0], dtype=torch.float64),
       torch.tensor([2.0], dtype=torch.float64)]
rows = V.precision_rows(Refs(ref), 0, [torch.tensor([3.0, 4.0]), torch.tensor([1, 2]), torch.tensor([1.0, 1.0]),
                                       torch.tensor([2.0])],
                        [torch.tensor([3.0, 5.0]), torch.tensor([1, 2]), torch.tensor([1.0])])["outputs"]
ok(len(rows) == 1 and rows[0]["index"] == 0 and rows[0]["dtype"] == "float32" and
   abs(rows[0]["rmse_cand"] - math.sqrt(0.5)) < 1e-9 and rows[0]["rmse_base"] == 0.0 and
   abs(rows[0]["ref_rms"] - math.sqrt(12.5)) < 1e-9,
   "precision_rows: each float output of the same shape, both sides' error to float64 and the reference's rms "
   "(none for an output the candidate lacks)", rows)

# measure: the GPU's memory running out is the worker's to handle (it makes
# room and asks again, worker.handle), not a verdict on what ran; any other
# error in the correctness run is the numbers' "error"; a stitch whose
# model did not reach the timing answers no times (rules/stitch.c takes
# 0 for none of them)
class StubCompiled:
    """a TEST DOUBLE of a compiled model: what measure and stitch read of it"""
    output_code = "code"
    decls = []
    key = "k"

    class problem:
        kind = "torch"


def raising(exc):
    def f(*a, **k):
        raise exc
    return f


@contextlib.contextmanager
def stubbed(**fns):
    """verify's functions named replaced by TEST DOUBLES for the block,
    the module's own back after it"""
    saved = {name: getattr(V, name) for name in fns}
    for name, fn in fns.items():
        setattr(V, name, fn)
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(V, name, fn)


def passes(c, swaps, gates, refs):
    """a correctness run that passes (a TEST DOUBLE of verify.correctness)"""
    return {"seeds": [{"seed": 0}]}, None, False


with stubbed(correctness=raising(torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 4.00 GiB"))):
    try:
        V.measure(StubCompiled(), {}, GATES, None, None, {})
        oom = "returned"
    except torch.cuda.OutOfMemoryError:
        oom = "raised"
ok(oom == "raised", "measure: out of GPU memory in the correctness run goes up to the worker", oom)
with stubbed(correctness=raising(ValueError("a shape the kernel cannot take"))):
    n = V.measure(StubCompiled(), {}, GATES, None, None, {})
    r = V.stitch(StubCompiled(), {"gates": GATES, "winners": []}, None)
ok(n["correctness"]["seeds"] == [] and n["correctness"]["error"].startswith("ValueError: a shape") and
   "perf" not in n, "measure: another error in the correctness run is the numbers' error, and no perf", n)
ok(r["base_ns_per_call"] is None and r["opt_ns_per_call"] is None and r["speedup"] is None,
   "stitch: a model that did not reach the timing answers no times, not zeros", r)
with stubbed(correctness=passes,
             timing=lambda *a: {"model_base_ns": [30.0, 10.0, 20.0, 40.0], "model_cand_ns": [8.0, 5.0, 6.0, 7.0]}):
    r = V.stitch(StubCompiled(), {"gates": GATES, "winners": []}, None)
ok(r["base_ns_per_call"] == 30.0 and r["opt_ns_per_call"] == 7.0 and abs(r["speedup"] - 30.0 / 7.0) < 1e-12,
   "stitch: timed, each side's median (the upper of the middle two)", r)

# not_searched: a winner whose kernel, as this worker compiled it, is not
# the source its search verified (the capture's source_hash) is named, so
# that the stitch leaves it off; a kernel the same, a request without the
# hash, a standalone file or a Helion kernel are not
from kopt.kernels import KernelDecl  # noqa: E402

k7 = KernelDecl("k7", "triton_poi_fused_7", "def triton_poi_fused_7(): pass\n", "pointwise")


class Here(StubCompiled):
    decls = [k7]


w = {"kernel": "triton_poi_fused_7", "source_hash": k7.hash}
ok(V.not_searched(Here(), w) is None, "not_searched: the kernel compiled here is the one verified: none")
why = V.not_searched(Here(), dict(w, source_hash="0" * 32))
ok(why is not None and why.startswith("triton_poi_fused_7 compiled here is not the kernel its search verified") and
   k7.hash[:12] in why, "not_searched: another source than the one verified is named, with both hashes", why)
ok(V.not_searched(Here(), {"kernel": "triton_poi_fused_7"}) is None and
   V.not_searched(Here(), dict(w, kernel="triton_other", source_hash="0" * 32)) is None,
   "not_searched: no hash in the request, or no such kernel here (build_candidate's to say): none")
# stitch: such a winner is left off before anything is built, with the
# reason (at most 300 characters: a long kernel name), and the model is
# timed without it
long = "triton_red_fused_" + "_".join(["convolution_native_batch_norm_relu"] * 8)
kl = KernelDecl("kl", long, "def %s(): pass\n" % long, "reduction")


class Long(Here):
    decls = [k7, kl]


seen = []
with stubbed(correctness=passes,
             timing=lambda c, swaps, *a: seen.append(dict(swaps)) or {"model_base_ns": [10.0], "model_cand_ns": [10.0]}):
    r = V.stitch(Long(), {"gates": GATES, "winners": [
        {"kernel": "triton_poi_fused_7", "candidate": {"config": {"XBLOCK": 64}}, "source_hash": "0" * 32},
        {"kernel": long, "candidate": {"config": {"XBLOCK": 64}}, "source_hash": "1" * 32, "from": "other"}]}, None)
d = r.get("dropped") or []
ok([x["kernel"] for x in d] == ["triton_poi_fused_7", long] and seen == [{}] and
   d[0]["reason"].startswith("triton_poi_fused_7 compiled here is not") and len(d[1]["reason"]) == 300,
   "stitch: winners on other text left off, its own and a group's, each with its reason (300 characters at "
   "most), the model timed without them", (d, seen))
with stubbed(correctness=passes, timing=lambda *a: {"model_base_ns": [10.0, 12.0]}):
    r = V.stitch(StubCompiled(), {"gates": GATES, "winners": []}, None)
ok(r["base_ns_per_call"] == 12.0 and r["opt_ns_per_call"] is None and r["speedup"] is None,
   "stitch: one side timed alone gives that time and no speedup", r)
Here.problem = type("P", (), {"kind": "helion"})
ok(V.not_searched(Here(), dict(w, source_hash="0" * 32)) is None, "not_searched: a Helion kernel's is its own: none")


# static_check: gate 1's reason, and the memcheck's where gate 1 asked for
# one; a memcheck that fails says its outcome first, since reasons travel
# cut at 400 characters (a gate-1 reason and a memcheck's "needs" took all
# of them on an H100, bench/results/2026-12-06g)


class Gate1:
    """a TEST DOUBLE of static_gate: in its own terms, one access to check"""
    report = report_helion = staticmethod(lambda src, orig: {"ok": True, "reason": "kernel keeps its name",
                                                             "memcheck": ["load at line 7"]})


def memchecked(ok_, reason):
    """a TEST DOUBLE of the memcheck module whose run answers ok_, reason"""
    return type("MC", (), {"run": staticmethod(lambda req, kernel, cand, why: {"ran": True, "ok": ok_,
                                                                              "reason": reason})})


Here.problem = type("P", (), {"kind": "torch"})
cand = {"source": "def triton_poi_fused_7(): pass\n"}
with stubbed(static_gate=Gate1, memcheck=memchecked(False, "compute-sanitizer memcheck could not run: X")):
    r = V.static_check(Here(), "triton_poi_fused_7", cand, {})
ok(not r["ok"] and r["reason"] == "compute-sanitizer memcheck could not run: X; kernel keeps its name",
   "static_check: a failing memcheck fails gate 1, its outcome first", r)
with stubbed(static_gate=Gate1, memcheck=memchecked(True, "needs a memcheck; clean")):
    r = V.static_check(Here(), "triton_poi_fused_7", cand, {})
ok(r["ok"] and r["reason"] == "kernel keeps its name; needs a memcheck; clean",
   "static_check: a clean memcheck passes, after gate 1's reason", r)
ok(V.static_check(Here(), "triton_poi_fused_7", {"config": {}}, {}) == {"ok": True, "reason": "config only"},
   "static_check: a config without source has nothing to read")
# a launch config is gate 1's too (kopt.static_config): poi_conv0's ymask
# is all true, so a YBLOCK past Inductor's 1024 writes past its output
poi = open(os.path.join(top, "tests", "static", "orig", "poi_conv0.py")).read()


class Poi(StubCompiled):
    decls = [KernelDecl("k0", "triton_poi_fused_convolution_0", poi, "pointwise")]


r = V.static_check(Poi(), "triton_poi_fused_convolution_0", {"config": {"XBLOCK": 64, "YBLOCK": 2048}}, {})
ok(not r["ok"] and "YBLOCK=2048" in r["reason"], "static_check: a config with a block past Inductor's fails gate 1", r)
ok(V.static_check(Poi(), "triton_poi_fused_convolution_0", {"config": {"XBLOCK": 64, "YBLOCK": 1024}}, {})
   == {"ok": True, "reason": "config only"}, "static_check: a config within Inductor's blocks passes")

done()
