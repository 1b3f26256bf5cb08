#!/usr/bin/env python3
"""tests/gpu/cost.py: what a model's steps cost in the worker, request by
request, on the GPU machine.

    cost.py WORKER OUTDIR MODEL.py...

For each model (KernelBench format): capture, profile with the gates (so
the compiled baseline is checked against eager), then three verifies of its
hottest Triton kernel: its own launch config (a candidate that is no
faster: perf must fail), the same config with num_warps halved or doubled,
and its own config again (every reference now comes from the worker's
store). All requests go to one worker, as the engine routes a model's steps.
Writes OUTDIR/cost.json and prints a table of wall seconds per request with
the references each verify used and how many timing pairs decided it.
"""
import json
import os
import subprocess
import sys
import time

GATES = {"seeds": 5, "atol": 1e-2, "rtol": 1e-2, "atol_half": 1e-2, "rtol_half": 1e-2,
         "fp64_fallback": True, "gamma": 1.03, "repeats": 30, "min_pairs": 6, "precision": "strict"}
VARIANT = {"name": "default", "mode": None, "options": {}, "aten_fallback": [], "cudnn_benchmark": False}


class Worker:
    def __init__(self, path: str):
        t0 = time.time()
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.hello = json.loads(self.p.stdout.readline())
        self.hello_s = time.time() - t0
        self.n = 0

    def ask(self, req: dict) -> tuple[dict, float]:
        self.n += 1
        req = dict(req, id=self.n)
        t0 = time.time()
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise SystemExit(f"worker died during {req['op']}")
        return json.loads(line), time.time() - t0


def main() -> int:
    worker, out, models = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    w = Worker(worker)
    print(f"hello after {w.hello_s:.1f}s", flush=True)
    rows, bad = [], 0
    for path in models:
        name = os.path.basename(path).removesuffix(".py")
        m = {"name": name, "kind": "torch", "path": os.path.abspath(path)}
        base = {"model": m, "variant": VARIANT, "seed": 0}
        row = {"model": name}
        rep, row["capture_s"] = w.ask(dict(base, op="capture"))
        if not rep.get("ok"):
            print(f"{name}: capture failed: {rep.get('error')}", flush=True)
            bad += 1
            continue
        rep, row["profile_s"] = w.ask(dict(base, op="profile", warmup=3, calls=20, gates=GATES))
        if not rep.get("ok"):
            print(f"{name}: profile failed: {rep.get('error')}", flush=True)
            bad += 1
            continue
        prof = rep["result"]
        row["check"] = prof.get("check")
        row["phases"] = prof.get("phases")
        hot = next((k for k in prof["kernels"] if k["kind"] == "triton" and k.get("source_hash")), None)
        if hot is None:
            rows.append(row)
            print(f"{name}: no Triton kernel", flush=True)
            continue
        cfg = None
        rep_cap, _ = w.ask(dict(base, op="capture"))
        for k in rep_cap["result"]["kernels"]:
            if k["name"] == hot["name"]:
                cfg = k.get("config")
        row["kernel"], row["share"] = hot["name"], hot["share"]
        cands = [{"source": None, "config": cfg}]
        if cfg:
            other = dict(cfg)
            other["num_warps"] = max(1, cfg.get("num_warps", 4) // 2) if cfg.get("num_warps", 4) > 2 else cfg.get("num_warps", 4) * 2
            cands += [{"source": None, "config": other}, {"source": None, "config": cfg}]
        row["verifies"] = []
        for i, cand in enumerate(cands):
            rep, secs = w.ask(dict(base, op="verify", kernel=hot["name"], candidate=cand, gates=GATES, tag=f"cost-{i}"))
            num = (rep.get("result") or {}).get("numbers") or {}
            perf = num.get("perf") or {}
            row["verifies"].append({
                "s": round(secs, 2), "ok": rep.get("ok"), "error": rep.get("error"),
                "seeds": len((num.get("correctness") or {}).get("seeds") or []),
                "pairs": len(perf.get("base_ns") or []), "stopped": perf.get("stopped"),
                "reference": num.get("reference")})
        rep, secs = w.ask(dict(base, op="screen", kernel=hot["name"], gates=GATES, budget_s=20, max_configs=48))
        res = rep.get("result") or {}
        row["screen"] = {"s": round(secs, 2), "ok": rep.get("ok"), "error": rep.get("error"),
                         "tried": len(res.get("tried") or []), "compiles": res.get("compiles"),
                         "best": [(b["config"], round(b["speedup"], 3)) for b in res.get("best") or []],
                         "failed": [r.get("error") for r in res.get("tried") or [] if not r.get("ok")][:5]}
        rows.append(row)
        v = " ".join(f"{x['s']:.1f}s({x['pairs']}p)" for x in row["verifies"])
        print(f"{name}: capture {row['capture_s']:.1f}s profile {row['profile_s']:.1f}s verify {v}", flush=True)
    with open(os.path.join(out, "cost.json"), "w") as f:
        json.dump({"hello": w.hello, "hello_s": w.hello_s, "rows": rows}, f, indent=1)
    for r in rows:
        if r.get("screen"):
            print(r["model"], "screen:", json.dumps(r["screen"]))
    print("| model | capture s | profile s | verifies s (pairs) | references of the last verify |")
    print("|---|---|---|---|---|")
    for r in rows:
        vs = r.get("verifies") or []
        v = ", ".join(f"{x['s']:.1f} ({x['pairs']})" for x in vs)
        ref = json.dumps(vs[-1]["reference"]) if vs else ""
        print(f"| {r['model']} | {r.get('capture_s', 0):.1f} | {r.get('profile_s', 0):.1f} | {v} | {ref} |")
    w.p.stdin.close()
    w.p.wait(timeout=60)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
