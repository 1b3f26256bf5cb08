"""tests/runtime/test_runtime.py: the torch-free parts of the kopt runtime on
outputs recorded on the GPU machine (tests/fixtures/gpu/, re-recorded by
tests/gpu/record-fixtures.sh). Prints TAP."""

import json
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import kernels as K  # noqa: E402
from kopt import records as R  # noqa: E402
from kopt import vendor_plan as VP  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

FIX = os.path.join(top, "tests", "fixtures", "gpu")

# the recordings are what the manifest says the GPU machine wrote
sys.path.insert(0, os.path.join(top, "tests", "gpu"))
import manifest  # noqa: E402
_bad = manifest.check(FIX)
if _bad:
    print("Bail out! the GPU fixtures do not match their manifest: " + "; ".join(_bad))
    sys.exit(1)


def load(name):
    with open(os.path.join(FIX, name)) as f:
        return json.load(f)["reply"]["result"]


for fixture, count in (("capture-small_softmax.json", 1), ("capture-small_convnet.json", 7)):
    cap = load(fixture)
    decls = K.split(cap["output_code"])
    triton = [k for k in cap["kernels"] if k["kind"] == "triton"]
    ok(len(decls) == count, f"{fixture}: output code splits into {count} Triton kernels", len(decls))
    ok([d.name for d in decls] == [k["name"] for k in triton], f"{fixture}: kernel names in order")
    ok([d.hash for d in decls] == [k["source_hash"] for k in triton], f"{fixture}: source hashes match the worker's")
    ok([d.heuristic for d in decls] == [k["heuristic"] for k in triton], f"{fixture}: heuristics")
    ok(all(d.source.lstrip().startswith("import triton") for d in decls), f"{fixture}: each source is a whole kernel module")
    ok(all(f"def {d.name}(" in d.source for d in decls), f"{fixture}: each source defines its kernel")

conv = load("capture-small_convnet.json")
names = {k["name"] for k in conv["kernels"] if k["kind"] == "triton"}
vendor = [k["name"] for k in conv["kernels"] if k["kind"] == "vendor"]
ok(len(vendor) >= 4, "convnet: cuDNN and cuBLAS kernels recorded as vendor", vendor)
ok(all(K.classify(v, names) == "vendor" for v in vendor), "classify: every recorded vendor name is vendor")
ok(K.classify("triton_poi_fused_relu_0", set()) == "triton", "classify: Triton names")
ok(K.classify("kopt_flash_attention_fwd", set()) == "kopt",
   "classify: kopt::attention's own Triton kernel is koptmake's, not a vendor's (its name has \"flash\")")
ok(K.classify("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE", set()) == "aten",
   "classify: ATen elementwise kernels")

prof = load("profile-raw-small_softmax.json")
raw = prof["raw_calls"]
every = [r for c in raw for r in c["records"]]
again = R.assign([(c["t0"], c["t1"]) for c in raw], list(reversed(every)))
ok(again == [c["records"] for c in raw], "assign: records return to their calls, whatever their order")
noise = [["flush", raw[0]["t0"] - 5000, raw[0]["t0"] - 10, 7, 0, [1, 1, 1], [1, 1, 1], 0]]
ok(R.assign([(c["t0"], c["t1"]) for c in raw], every + noise) == [c["records"] for c in raw],
   "assign: a flush that ends before the window is not counted")
order, per = R.per_kernel([c["records"] for c in raw])
rows = {r["name"]: r for r in prof["kernels"]}
ok(order == list(rows), "per_kernel: the same kernels as the profile")
ok(all(abs(per[k]["ns"] / prof["calls"] - rows[k]["ns_per_call"]) < 1e-6 for k in order),
   "per_kernel: totals equal the profile's time per call")
for name in ("profile-small_softmax.json", "profile-small_triton.json", "profile-raw-small_softmax.json"):
    p = load(name)
    ksum = sum(r["ns_per_call"] for r in p["kernels"])
    ok(abs(ksum - p["device_ns_per_call"]) <= 0.10 * p["device_ns_per_call"],
       f"{name}: kernel times add up to the device time within 10%", (ksum, p["device_ns_per_call"]))
    ok(abs(sum(r["share"] for r in p["kernels"]) - 1.0) < 1e-9, f"{name}: shares add up to 1")
    ok(all(r["achieved_gbps"] is None or r["achieved_gbps"] <= 1.05 * p["peak_copy_gbps"] for r in p["kernels"]),
       f"{name}: no Triton kernel beats the copy bandwidth")


cap = load("capture-small_convnet.json")
ops = K.aten_ops(cap["output_code"])
ok(len(ops) == 7 and ops.get("triton_poi_fused_convolution_relu_2") == ["aten.convolution", "aten.relu"],
   "aten_ops: each kernel's Original ATen line, not the call body's", ops)
ok(any(v[:1] == ["prims.prepare_softmax_online"] for v in ops.values()), "aten_ops: prims ops are kept as written", ops)

# posing vendor calls: the linear layer of reference/inductor-output-sample.py,
#   extern_kernels.addmm(arg4_1, reinterpret_tensor(buf3, (64, 8192), (8192, 1), 0),
#                        reinterpret_tensor(arg3_1, (8192, 1024), (1, 8192), 0), alpha=1, beta=1, out=buf4)
def T(shape, stride, dtype="float32"):
    return {"tensor": shape, "stride": stride, "dtype": dtype}


lin = ([T([1024], [1]), T([64, 8192], [8192, 1]), T([8192, 1024], [1, 8192])],
       {"alpha": 1, "beta": 1, "out": T([64, 1024], [1024, 1])})
p, why = VP.gemm_problem("addmm", *lin)
ok(p == {"m": 1024, "n": 64, "k": 8192, "transa": 1, "lda": 8192, "transb": 0, "ldb": 8192, "ldc": 1024,
         "dtype": "float32", "bias": 1}, "vendor: a linear layer's addmm is D^T = W x^T with a bias epilogue", (p, why))
ok(VP.describe("addmm", p) == "m=64 n=1024 k=8192", "vendor: described in torch's terms", VP.describe("addmm", p))
p, _ = VP.gemm_problem("mm", [T([64, 8192], [1, 64]), T([8192, 1024], [1024, 1])], {"out": T([64, 1024], [1024, 1])})
ok(p and p["transa"] == 0 and p["lda"] == 1024 and p["transb"] == 1 and p["ldb"] == 64,
   "vendor: a column-major left operand is transposed", p)
p, why = VP.gemm_problem("addmm", lin[0], {**lin[1], "beta": 0.5})
ok(p is None and "beta" in why, "vendor: addmm with beta != 1 is not posed", why)
p, why = VP.gemm_problem("mm", [T([64, 64], [2, 128]), T([64, 64], [64, 1])], {"out": T([64, 64], [64, 1])})
ok(p is None and "layout" in why, "vendor: a strided operand is not posed", why)
p, why = VP.gemm_problem("addmm", [T([64, 1024], [1024, 1]), *lin[0][1:]], lin[1])
ok(p is None and "bias" in why, "vendor: a full-matrix bias is not posed", why)
p, _ = VP.gemm_problem("bmm", [T([8, 128, 64], [8192, 64, 1]), T([8, 64, 128], [8192, 1, 64])],
                       {"out": T([8, 128, 128], [16384, 128, 1])})
ok(p and p["batch"] == 8 and p["stride_a"] == 8192 and p["stride_c"] == 16384 and p["transa"] == 1,
   "vendor: bmm keeps its batch strides", p)
conv = ([T([64, 3, 32, 32], [3072, 1024, 32, 1]), T([32, 3, 3, 3], [27, 1, 9, 3])],
        {"stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "transposed": False,
         "output_padding": [0, 0], "groups": 1, "bias": None})
p, why = VP.conv_problem(*conv)
ok(p and p["w_nhwc"] == 1 and p["pad"] == [1, 1] and p["groups"] == 1, "vendor: a channels-last weight is NHWC", (p, why))
ok(VP.describe("convolution", p) == "N=64 C=3 H=32 W=32 K=32 3x3 stride 1 pad 1", "vendor: a convolution described",
   VP.describe("convolution", p))
p, why = VP.conv_problem(conv[0], {**conv[1], "transposed": True})
ok(p is None and "transposed" in why, "vendor: a transposed convolution is not posed", why)
p, why = VP.conv_problem([T([2, 3, 8, 8, 8], [1536, 512, 64, 8, 1]), T([4, 3, 3, 3, 3], [81, 27, 9, 3, 1])], {})
ok(p is None and "3-d" in why, "vendor: a 3-d convolution is not posed", why)

# the vendor part of profiles recorded on the H200 (runtime/python/kopt/vendor.py)
with open(os.path.join(FIX, "vendor-calls.json")) as f:
    vc = json.load(f)["models"]
calls = [c for v in vc.values() for c in v["calls"]]
timed = [c for c in calls if "skipped" not in c]
# the figures of each call, worked out again by vendor_plan.summarize (what
# vendor.py runs on the GPU) from the recorded algorithms' times alone
derived = ("heuristic_ns", "best_ns", "best_rank", "left_frac")
again = [VP.summarize(c["algos"], c["torch_ns"]) for c in timed]
ok(len(timed) == 10 and all(a == {k: c[k] for k in derived} for a, c in zip(again, timed)),
   "vendor: summarize gives the recorded heuristic, best and left_frac of all ten calls",
   [(a, {k: c[k] for k in derived}) for a, c in zip(again, timed) if a != {k: c[k] for k in derived}])
# and on calls worked out by hand: rank 0 is the heuristic's pick whatever
# its time; an algorithm that did not match torch has no time and is never
# the best; torch faster than every algorithm leaves nothing
algos = [{"rank": 0, "ok": True, "ns": 120.0}, {"rank": 1, "ok": False}, {"rank": 2, "ok": True, "ns": 80.0},
         {"rank": 3, "ok": True, "ns": 90.0}]
ok(VP.summarize(algos, 100.0) == {"heuristic_ns": 120.0, "best_ns": 80.0, "best_rank": 2, "left_frac": 0.2},
   "vendor: the best is rank 2 (80 of torch's 100 ns: 0.2 left), the heuristic's pick 120", VP.summarize(algos, 100.0))
ok(VP.summarize(algos, 50.0)["left_frac"] == 0.0, "vendor: torch faster than the best leaves 0", VP.summarize(algos, 50.0))
ok(VP.summarize([{"rank": 0, "ok": False}, {"rank": 1, "ok": True, "ns": 7.0}], 8.0) ==
   {"heuristic_ns": None, "best_ns": 7.0, "best_rank": 1, "left_frac": 0.125},
   "vendor: a heuristic pick that failed has no time")
ok(VP.summarize([{"rank": 0, "ok": False}], 8.0) == {}, "vendor: no algorithm ran: no figures")
ok(VP.summarize([{"rank": 0, "ok": True, "ns": 5.0}], 0.0)["left_frac"] == 0.0, "vendor: no torch time: 0 left")
ok(all(c["torch_kernels"] and all(K.classify(k, set()) == "vendor" for k in c["torch_kernels"] if "xmma" in k or "cutlass" in k)
       for c in timed), "vendor: torch's own kernels are recorded for each call", [c["torch_kernels"] for c in timed])

# The output code captured for cross_entropy's max-autotune variant on the
# H200 (2026-11-29): the text of every module Inductor loaded while compiling,
# joined. Two kernel modules (loaded to benchmark a kernel) came before the
# output module, and the kernels were looked up there: no launch config.
import re  # noqa: E402
import types  # noqa: E402

with open(os.path.join(FIX, "output-cross_entropy-autotune.py")) as f:
    texts = f.read().split("\n# ---- next graph ----\n")


def fake_module(i, text):
    """A module with the globals the text defines at top level (no triton here to run it)."""
    m = types.ModuleType(f"m{i}")
    for name in re.findall(r"^(?:def |class )?(\w+)(?: = |\(|:)", text, re.M):
        setattr(m, name, object())
    if re.search(r"^call = ", text, re.M):
        m.call = lambda args: None
    m.text = text
    return m


mods = [fake_module(i, t) for i, t in enumerate(texts)]
outs = K.output_modules(mods)
ok(len(mods) == 4 and [mods.index(m) for m in outs] == [2],
   "max-autotune: of 4 modules loaded, the output module (the third) is kept", [mods.index(m) for m in outs])
kept = [d.name for m in outs for d in K.split(m.text)]
ok(kept == ["triton_red_fused_prepare_softmax_online_0", "triton_red_fused__log_softmax_nll_loss_forward_sub_1",
            "triton_per_fused__log_softmax_nll_loss_forward_sub_2"],
   "max-autotune: the output module declares the model's 3 kernels", kept)
shadow = [k for k in kept if any(hasattr(m, k) for m in mods[:2])]
ok(shadow == kept[:2], "max-autotune: the two looped reductions are also defined by modules loaded before it", shadow)
nocall = [types.ModuleType("a"), types.ModuleType("b")]
ok(K.output_modules(nocall) == nocall, "no module with call(): all are kept")

# compile metadata and occupancy (kernels.compile_meta): Hopper's limits,
# worked by hand; objects shaped as Triton's and Inductor's are (test doubles)
ok(K.occupancy(32, 4, 0) == 1.0, "occupancy: 32 registers, 4 warps: a full SM (16 blocks of 4 warps)")
ok(K.occupancy(40, 8, 4096) == 0.75, "occupancy: 40 registers (1280 a warp), 8 warps: 6 blocks, 48 of 64 warps",
   K.occupancy(40, 8, 4096))
ok(K.occupancy(255, 8, 0) == 0.125, "occupancy: 255 registers, 8 warps: one block", K.occupancy(255, 8, 0))
ok(K.occupancy(128, 4, 100000) == 0.125, "occupancy: 100 KB of shared memory a block: two blocks of 4 warps",
   K.occupancy(128, 4, 100000))
ok(K.occupancy(None, 4, 0) is None and K.occupancy(32, None, 0) is None, "occupancy: unknown registers or warps: None")
ok(K.occupancy(64, 4, 0, {"regs": 32768, "threads": 1536, "shared": 102400, "blocks": 16}) == 16 / 48,
   "occupancy: the device's own limits where torch gives them (32768 registers: 4 blocks of 4 warps, of 48)")


class _Meta:
    num_warps, shared = 8, 4096


class _CK:  # a CompiledKernel
    n_regs, n_spills, metadata = 40, 2, _Meta()


class _Res:
    kernel = _CK()


class _Tuner:  # a CachingAutotuner whose launcher lacks the attributes
    launchers = [types.SimpleNamespace(config=types.SimpleNamespace(num_warps=8))]
    compile_results = [_Res()]


m = K.compile_meta(_Tuner())
ok(m == {"n_regs": 40, "n_spills": 2, "num_warps": 8, "shared_bytes": 4096, "occupancy": 0.75},
   "compile_meta: registers, spills, warps and shared memory from the CompiledKernel behind the launcher", m)
jit = types.SimpleNamespace(device_caches={0: ({"k1": _CK()}, None, None, None)})
ok(K.compile_meta(jit)["n_regs"] == 40, "compile_meta: a @triton.jit function's last compiled kernel", K.compile_meta(jit))


class _Raises:
    @property
    def n_regs(self):
        raise RuntimeError("no handles")


none = {"n_regs": None, "n_spills": None, "num_warps": None, "shared_bytes": None, "occupancy": None}
ok(K.compile_meta(object()) == none and K.compile_meta(None) == none,
   "compile_meta: an object without metadata: every field None, no exception")
ok(K.compile_meta(types.SimpleNamespace(launchers=[_Raises()]))["n_regs"] is None,
   "compile_meta: an attribute that raises reads as None")

# a failed step's one line: the error, not torch's advice after it (the
# message below is the one a capture on the GPU machine gave, torch 2.11)
from kopt.errors import error_line  # noqa: E402


class BackendCompilerFailed(Exception):
    pass


_msg = ("backend='kopt_rewriting' raised:\nInductorError: AssertionError: both a fallback and a decomp for same op: "
        "aten.mv.default\n\nSet TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if "
        "you're reporting a bug to PyTorch). For even more developer context, set TORCH_LOGS=\"+dynamo\"\n")
_line = error_line(BackendCompilerFailed(_msg))
ok(_line == "BackendCompilerFailed: backend='kopt_rewriting' raised: InductorError: AssertionError: both a fallback "
   "and a decomp for same op: aten.mv.default", "error_line: a compile error's own lines, torch's advice left out",
   _line)
ok(error_line(ValueError("bad shape")) == "ValueError: bad shape", "error_line: a one-line error as it is")
ok(error_line(KeyError()) == "KeyError", "error_line: an error without a message: its type")

done()
