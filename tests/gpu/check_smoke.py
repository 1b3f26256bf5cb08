#!/usr/bin/env python3
"""tests/gpu/check_smoke.py: assertions on smoke.sh's replies (TAP).

    check_smoke.py OUTDIR
"""
import glob
import json
import os
import sys

out = sys.argv[1]
n = failed = 0


def ok(cond, name, diag=""):
    global n, failed
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {name}", flush=True)
    if not cond:
        failed += 1
        if diag:
            print("# " + str(diag)[:2000].replace("\n", "\n# "))


replies = {}
for f in sorted(glob.glob(os.path.join(out, "reply-*.json"))):
    d = json.load(open(f))
    replies[os.path.basename(f)] = d
hello = json.load(open(os.path.join(out, "hello.json")))
ok(hello.get("protocol") == 1 and hello["env"].get("torch"), "hello carries protocol 1 and the environment")


def get(name):
    return replies.get(name, {}).get("reply", {})


# the device's roofs: the copy bandwidth and the FP32 peak, measured once
bw = get("reply-2-bandwidth.json")
ok(bw.get("ok"), "bandwidth ok", bw.get("error"))
roofs = bw.get("result", {})
ok(isinstance(roofs.get("copy_gbps"), float) and 100 < roofs["copy_gbps"] < 20000,
   "bandwidth: a copy bandwidth between 0.1 and 20 TB/s", roofs)
fp = roofs.get("fp32_gflops")
ok(isinstance(fp, float) and 1000 < fp < 200000, "bandwidth: an FP32 peak between 1 and 200 TFLOP/s (matmul, TF32 off)", roofs)
if isinstance(fp, float) and "H200" in hello["env"].get("gpu", ""):
    # the datasheet's 67 TFLOP/s; cuBLAS's SGEMM reaches most of it, TF32 would exceed it
    ok(0.5 * 67000 < fp < 1.05 * 67000, "bandwidth: on an H200 the FP32 peak is 50-105% of the datasheet's 67 TFLOP/s", fp)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))
from kopt import kernels as K  # noqa: E402

for cap, prof, label in (("reply-3-capture.json", "reply-4-profile.json", "softmax"),
                         ("reply-5-capture.json", "reply-6-profile.json", "convnet")):
    c, p = get(cap), get(prof)
    ok(c.get("ok"), f"{label}: capture ok", c.get("error"))
    ok(p.get("ok"), f"{label}: profile ok", p.get("error"))
    if not (c.get("ok") and p.get("ok")):
        continue
    r = p["result"]
    ks = sum(k["ns_per_call"] for k in r["kernels"])
    if label == "softmax":
        ok(abs(ks - r["device_ns_per_call"]) <= 0.10 * r["device_ns_per_call"],
           f"{label}: kernel times add up to the device time within 10%", (ks, r["device_ns_per_call"]))
    else:  # a small model is launch-bound: the GPU idles between kernels
        ok(ks <= 1.02 * r["device_ns_per_call"], f"{label}: kernel times fit in the device time", (ks, r["device_ns_per_call"]))
    # a call queued behind a spin: its kernels back to back, so no less
    # than their sum and no more than the span from an idle GPU (plus the
    # events' own few microseconds)
    q = r.get("queued_ns_per_call")
    ok(isinstance(q, float) and 0.98 * ks <= q <= 1.05 * max(ks, r["device_ns_per_call"]) + 10000,
       f"{label}: a queued call's device time lies between the kernels' sum and the span", (ks, q, r["device_ns_per_call"]))
    tri = [k for k in r["kernels"] if k["kind"] == "triton"]
    ok(tri and all(k["achieved_gbps"] and k["achieved_gbps"] > 0 for k in tri),
       f"{label}: every Triton kernel has an achieved bandwidth")
    names = {k["name"] for k in c["result"]["kernels"]}
    ok(all(k["name"] in names for k in r["kernels"]), f"{label}: every profiled kernel is in the capture inventory")
    ok(r.get("peak_fp32_gflops") == fp and r.get("peak_copy_gbps") == roofs.get("copy_gbps"),
       f"{label}: the profile carries the roofs the bandwidth request measured", (r.get("peak_fp32_gflops"), fp))
    # compile metadata, read from the compiled kernels (no compile)
    warps = {k["name"]: (k.get("config") or {}).get("num_warps") for k in c["result"]["kernels"]}
    meta = [(k["name"], k.get("n_regs"), k.get("n_spills"), k.get("num_warps"), k.get("shared_bytes"), k.get("occupancy"))
            for k in tri]
    ok(all(isinstance(x[1], int) and 0 < x[1] <= 255 for x in meta), f"{label}: every Triton kernel's registers (1..255)", meta)
    ok(all(isinstance(x[2], int) and x[2] >= 0 for x in meta), f"{label}: every Triton kernel's spills (0 or more)", meta)
    ok(all(x[3] == warps.get(x[0]) for x in meta), f"{label}: its warps are its launch config's", (meta, warps))
    ok(all(isinstance(x[4], int) and x[4] >= 0 for x in meta), f"{label}: its shared memory per block", meta)
    ok(all(isinstance(x[5], float) and 0 < x[5] <= 1 for x in meta), f"{label}: its occupancy in (0, 1]", meta)
    if any(g in hello["env"].get("gpu", "") for g in ("H100", "H200")):
        # Hopper's SM limits are kernels.py's defaults: the figure follows from the other four
        ok(all(x[5] == K.occupancy(x[1], x[3], x[4]) for x in meta),
           f"{label}: its occupancy follows from registers, warps and shared memory (Hopper's limits)", meta)
    nonpt = [k for k in r["kernels"] if k["kind"] != "triton"]
    ok(all("n_regs" not in k for k in nonpt), f"{label}: vendor and ATen rows carry no compile metadata")
    if label == "convnet":
        ok(any(k["kind"] == "vendor" for k in r["kernels"]), "convnet: cuDNN/cuBLAS kernels profiled as vendor")
bad = get("reply-7-capture.json")
ok(bad.get("ok") is False and "no_such_module" in bad.get("error", "") and "Traceback" not in bad.get("error", ""),
   "bad import: the step fails with the exception's last line", bad)
ok("bad_import.py" in bad.get("detail", ""), "bad import: the detail holds the traceback's last lines")
ok(get("reply-8-capture.json").get("ok"), "the worker recovers: the next capture works")
print(f"1..{n}")
sys.exit(1 if failed else 0)
