#!/usr/bin/env python3
"""tests/gpu/counters.py: the bytes each kernel moves, from the GPU's
counters (runtime/counters.c, CUPTI's range profiler), in the worker's
profile (issue 22, item 5).

    counters.py WORKER OUTDIR

Profiles a few examples with the real worker and checks: the profile says
how the collection went (no error, every Triton kernel counted); a
pointwise kernel over 512 MiB, which reads its input once and writes its
output once, moved its arguments' bytes within 10%; every count is a
number above zero; and the kernel records still come after a collection
(the Activity API is switched off for it and on again). Prints each
kernel's argument and DRAM bytes, for the record, and TAP.
"""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.join(here, "..", "..")
sys.path.insert(0, os.path.join(here, "..", "runtime"))
import tap  # noqa: E402
from tap import ok  # noqa: E402

V = {"name": "default", "mode": None, "options": {}, "aten_fallback": [], "cudnn_benchmark": False}
MODELS = ("elementwise", "layernorm", "col_mean", "softmax", "conv2d_relu")


def ask(p, req, i):
    p.stdin.write(json.dumps(dict(req, id=i)) + "\n")
    p.stdin.flush()
    line = p.stdout.readline()
    if not line:
        raise RuntimeError(f"the worker died (exit {p.wait()})")
    rep = json.loads(line)
    if not rep.get("ok"):
        raise RuntimeError(f"{req['op']}: {rep.get('error')}\n{rep.get('detail', '')}")
    return rep["result"]


def main():
    worker, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    p = subprocess.Popen([worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    json.loads(p.stdout.readline())  # hello
    i = 0
    try:
        for name in MODELS:
            model = {"name": name, "kind": "torch", "path": os.path.join(top, "examples", "models", f"{name}.py")}
            i += 1
            ask(p, {"op": "capture", "model": model, "variant": V, "seed": 0}, i)
            i += 1
            res = ask(p, {"op": "profile", "model": model, "variant": V, "seed": 0, "warmup": 3, "calls": 5}, i)
            with open(os.path.join(outdir, f"profile-{name}.json"), "w") as f:
                json.dump(res, f, indent=1)
            cnt = res.get("counters") or {}
            ok(cnt and "error" not in cnt, f"{name}: the counters were collected", cnt)
            if not cnt or "error" in cnt:
                continue
            print(f"# {name}: passes {cnt.get('passes')}, dropped {cnt.get('dropped')}, "
                  f"unmatched {cnt.get('unmatched')}, phases {res.get('phases')}")
            for r in res["kernels"]:
                tr = r["dram_bytes"] / r["bytes"] if r.get("dram_bytes") and r.get("bytes") else None
                print(f"#   {r['name'][:60]} {r['kind']}: {r['ns_per_call'] / 1e3:.1f} us, args {r.get('bytes')}, "
                      f"DRAM {r.get('dram_bytes')}, traffic {tr if tr is None else round(tr, 3)}, "
                      f"{r.get('dram_gbps') and round(r['dram_gbps'])} GB/s moved")
            triton = [r for r in res["kernels"] if r["kind"] == "triton"]
            ok(all(r.get("dram_bytes", 0) > 0 for r in triton),
               f"{name}: every Triton kernel has its DRAM bytes", [(r["name"], r.get("dram_bytes")) for r in triton])
            ok(res["kernels"] and all(r["ns_per_call"] > 0 for r in res["kernels"]),
               f"{name}: kernel records after the collection", len(res["kernels"]))
            if name == "elementwise" and triton:
                r = triton[0]
                ok(r.get("dram_bytes") and abs(r["dram_bytes"] / r["bytes"] - 1) < 0.10,
                   "elementwise: a pointwise kernel moved its arguments' bytes within 10%", (r.get("dram_bytes"), r["bytes"]))
        i += 1
        res = ask(p, {"op": "profile", "model": {"name": "softmax", "kind": "torch",
                      "path": os.path.join(top, "examples", "models", "softmax.py")},
                      "variant": V, "seed": 0, "warmup": 1, "calls": 3, "counters": False}, i)
        ok("counters" not in res and not any("dram_bytes" in r for r in res["kernels"]),
           "counters: false collects nothing", res.get("counters"))
    except Exception as exc:
        ok(False, "the worker answered every request", exc)
    finally:
        p.stdin.close()
        p.wait(timeout=60)
    tap.done()


if __name__ == "__main__":
    main()
