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

FIX = os.path.join(top, "tests", "fixtures", "gpu")
n = failed = 0


def ok(cond, name, diag=""):
    global n, failed
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {name}")
    if not cond:
        failed += 1
        if diag:
            print("# " + str(diag).replace("\n", "\n# "))


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

print(f"1..{n}")
sys.exit(1 if failed else 0)
