#!/usr/bin/env python3
"""tests/gpu/tplthreads.py: max-autotune's template choices precompiled in
threads of the compiling process (runtime/python/kopt/tplthreads.py), on
the real Inductor.

    tplthreads.py OUTDIR

Two children each compile a two-layer MLP (two matrix products: GEMM
templates) with max-autotune-no-cudagraphs. Each starts with empty Inductor
and Triton caches of its own, and waits until Inductor's compile pool is up,
as it is once a network's tracing is done. One child runs with
kopt.tplthreads installed and the other with KOPT_TEMPLATE_THREADS=0.
Each child counts Inductor's own log lines saying where it sent each
template choice: "Submitted precompile" for a thread, "Submitted triton
async compile" for the pool. Checks, printed as TAP:

- install() finds Inductor's functions in this torch;
- with the pool up and nothing installed, the choices go to the pool. This
  shows the test can tell the two apart;
- installed, every choice goes to a thread and none goes to the pool;
- both compiled models give eager's outputs (the same choices, compiled
  elsewhere);
- the seconds of each compile, and Inductor's benchmarking seconds, are
  printed.
"""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "runtime"))
sys.path.insert(0, here)
from tap import ok, done  # noqa: E402
import compile_child  # noqa: E402

CHILD = r'''
import json, logging, os, re, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "runtime", "python"))
import torch
from kopt import tplthreads
installed = tplthreads.install()
seen = {"thread": 0, "pool": 0}
class Count(logging.Handler):
    def emit(self, rec):
        m = rec.getMessage()
        if m.startswith("Submitted precompile for choice"):
            seen["thread"] += 1
        elif m.startswith("Submitted triton async compile for choice"):
            seen["pool"] += 1
log = logging.getLogger("torch._inductor.select_algorithm")
log.setLevel(logging.DEBUG)
log.addHandler(Count())
from torch._inductor.async_compile import AsyncCompile
ready = False
if AsyncCompile.use_process_pool() is not None and getattr(AsyncCompile, "_ready_future", None):
    AsyncCompile._ready_future.result(timeout=300)
    ready = bool(AsyncCompile.use_process_pool())
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 256)).cuda().eval()
x = torch.randn(4096, 512, device="cuda")
c = torch.compile(m, mode="max-autotune-no-cudagraphs")
t0 = time.perf_counter()
with torch.no_grad():
    got = c(x)
    want = m(x)
torch.cuda.synchronize()
secs = time.perf_counter() - t0
print(json.dumps({"installed": installed, "ready": ready, "thread": seen["thread"], "pool": seen["pool"],
                  "close": bool(torch.allclose(got, want, rtol=1e-2, atol=1e-2)),
                  "err": float((got - want).abs().max()), "seconds": round(secs, 1)}))
'''


def child(out, name, env_extra):
    r = compile_child.run(CHILD, out, name, env_extra, drop=("KOPT_TEMPLATE_THREADS",))
    r.pop("stderr")
    return r


out = sys.argv[1] if len(sys.argv) > 1 else "tplthreads-out"
os.makedirs(out, exist_ok=True)
off = child(out, "pool", {"KOPT_TEMPLATE_THREADS": "0"})
on = child(out, "threads", {})
print(f"# pool: {off}")
print(f"# threads: {on}")
ok(on.get("installed") is True, "install() wraps this torch's make_precompile_fn and use_process_pool", on)
ok(off.get("installed") is False, "KOPT_TEMPLATE_THREADS=0: nothing installed", off)
ok(off.get("ready") and on.get("ready"), "the compile pool was up before each compile", (off.get("ready"), on.get("ready")))
ok(off.get("pool", 0) > 0, f"left alone, Inductor sends the choices to the pool ({off.get('pool')} of them)", off)
ok(on.get("thread", 0) > 0 and on.get("pool", 1) == 0,
   f"installed, every choice goes to a thread ({on.get('thread')}), none to the pool", on)
ok(on.get("thread") == off.get("pool"), "the same number of choices either way", (on.get("thread"), off.get("pool")))
ok(off.get("close") and on.get("close"), "both compiled models give eager's outputs",
   (off.get("err"), on.get("err")))
print(f"# compile: {off.get('seconds')} s with the pool (benchmarking {off.get('bench')} s), "
      f"{on.get('seconds')} s in threads (benchmarking {on.get('bench')} s)")
done()
