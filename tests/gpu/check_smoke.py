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
    tri = [k for k in r["kernels"] if k["kind"] == "triton"]
    ok(tri and all(k["achieved_gbps"] and k["achieved_gbps"] > 0 for k in tri),
       f"{label}: every Triton kernel has an achieved bandwidth")
    names = {k["name"] for k in c["result"]["kernels"]}
    ok(all(k["name"] in names for k in r["kernels"]), f"{label}: every profiled kernel is in the capture inventory")
    if label == "convnet":
        ok(any(k["kind"] == "vendor" for k in r["kernels"]), "convnet: cuDNN/cuBLAS kernels profiled as vendor")
bad = get("reply-7-capture.json")
ok(bad.get("ok") is False and "no_such_module" in bad.get("error", "") and "Traceback" not in bad.get("error", ""),
   "bad import: the step fails with the exception's last line", bad)
ok("bad_import.py" in bad.get("detail", ""), "bad import: the detail holds the traceback's last lines")
ok(get("reply-8-capture.json").get("ok"), "the worker recovers: the next capture works")
print(f"1..{n}")
sys.exit(1 if failed else 0)
