#!/usr/bin/env python3
"""tests/gpu/tunelock.py: one worker tunes an operator that several
workers' variants share (runtime/python/kopt/gpulock.py: `tuning`, and
the merged writes of Inductor's cache of timings), on the real Inductor.

    tunelock.py OUTDIR

Two pairs of children. In each pair, two processes compile the same
three-layer MLP with max-autotune-no-cudagraphs at the same moment, with
one Inductor cache between them (Inductor's graph cache off, so that each
lowers the graph and looks its operators up), as two variants' captures
do beside each other. The control pair takes only the GPU's lock (each
child times every operator); the other installs gpulock as the worker
does. Inductor prints an AUTOTUNE block for each operator it times.
Checks, printed as TAP:

- install() wraps this torch's selector lookup and its cache's writes;
- the control pair timed some operator in both children (the compiles
  did overlap, so the check below means something);
- with gpulock, each operator was timed once over the two children;
- the cache file then holds every operator's timings;
- every compiled model gives eager's outputs.
"""

import json
import os
import re
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.join(here, "..", "..")
sys.path.insert(0, os.path.join(here, "..", "runtime"))
from tap import ok, done  # noqa: E402

CHILD = r'''
import json, os, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "runtime", "python"))
import torch
from kopt import gpulock as G
base, go, whole = sys.argv[2], sys.argv[3], sys.argv[4] == "1"
p = torch.cuda.get_device_properties(0)
if whole:
    G.install(base, str(getattr(p, "uuid", None) or p.name), p.name)
else:   # the GPU's lock alone, as before the tuning lock
    from torch._inductor.runtime import benchmarking
    G._fd = G._open(G.lock_path(base, str(p.name)))
    G.wrap_benchmarkers(benchmarking)
from torch._inductor import codecache, select_algorithm
wrapped = bool(getattr(select_algorithm.AlgorithmSelectorCache.lookup, "kopt_tuning", False)
               and getattr(codecache.CacheBase.update_local_cache, "kopt_merge", False))
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 512),
                        torch.nn.ReLU(), torch.nn.Linear(512, 1000)).cuda().eval()
x = torch.randn(256, 1024, device="cuda")
comp = torch.compile(m, mode="max-autotune-no-cudagraphs")
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.01)
t0 = time.perf_counter()
with torch.no_grad():
    got = comp(x)
    want = m(x)
torch.cuda.synchronize()
print(json.dumps({"wrapped": wrapped, "close": bool(torch.allclose(got, want, rtol=1e-2, atol=1e-2)),
                  "seconds": round(time.perf_counter() - t0, 1), "waited": round(G.waited(), 1)}))
'''


def timed_ops(err):
    """the operators Inductor timed, one per AUTOTUNE block it printed"""
    return [b.split("\n", 1)[0].strip() for b in re.split(r"^AUTOTUNE ", err, flags=re.M)[1:]]


def pair(out, name, whole):
    """two children compiling at once over one cache; their results"""
    cache = os.path.join(out, name)
    os.makedirs(cache, exist_ok=True)
    go = os.path.join(cache, "go")
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, TRITON_CACHE_DIR=os.path.join(cache, "triton"),
               TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0", KOPT_COMPILE_CACHE=cache)
    kids = [subprocess.Popen([sys.executable, "-c", CHILD, top, cache, go, "1" if whole else "0"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for k in kids:
        k.stdout.readline()   # both have imported torch and built the model
    open(go, "w").close()
    got = []
    for i, k in enumerate(kids):
        so, se = k.communicate(timeout=540)
        with open(os.path.join(out, f"{name}-{i}.err"), "w") as f:
            f.write(se)
        try:
            r = json.loads(so.strip().splitlines()[-1])
        except (ValueError, IndexError):
            r = {"failed": (so + se)[-600:]}
        r["timed"] = timed_ops(se)
        got.append(r)
    local = os.path.join(cache, "cache")
    files = [os.path.join(local, f) for f in os.listdir(local)] if os.path.isdir(local) else []
    kept = set()   # (operator, inputs) with timings in the cache file
    for f in files:
        try:
            for op, by_inputs in json.load(open(f)).get("cache", {}).items():
                kept |= {(op, k) for k in by_inputs}
        except (OSError, ValueError, AttributeError):
            pass
    return got, kept


out = sys.argv[1] if len(sys.argv) > 1 else "tunelock-out"
os.makedirs(out, exist_ok=True)
t0 = time.perf_counter()
control, _ = pair(out, "control", False)
locked, kept = pair(out, "locked", True)
for name, rs in (("control", control), ("locked", locked)):
    for i, r in enumerate(rs):
        print(f"# {name} {i}: timed {len(r['timed'])} {r['timed']}; "
              f"{ {k: v for k, v in r.items() if k != 'timed'} }")
ok(all(r.get("wrapped") for r in locked), "install() wraps this torch's selector lookup and its cache's writes", locked)
c0, c1 = (r["timed"] for r in control)
l0, l1 = (r["timed"] for r in locked)
ops = set(c0) | set(c1)
ok(len(c0) + len(c1) > len(ops), f"the control pair timed operators in both children ({len(c0)} and {len(c1)} of "
   f"{len(ops)}: the compiles overlapped)", (c0, c1))
ok(ops and len(l0) + len(l1) == len(set(l0 + l1)) and set(l0 + l1) == ops,
   f"with gpulock, each operator timed once over the two children ({len(l0)} and {len(l1)} of {len(ops)})", (l0, l1))
ok(len(kept) >= len(ops), f"the cache file holds the timings of every operator timed ({len(kept)})", sorted(kept))
ok(all(r.get("close") for r in control + locked), "every compiled model gives eager's outputs")
print(f"# {time.perf_counter() - t0:.0f} s in all")
done()
