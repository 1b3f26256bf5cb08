#!/usr/bin/env python3
"""tests/gpu/graph_cache.py: a deployment's compile is served by the
graph a worker compiled into the same compile cache.

    graph_cache.py WORKER OUTDIR

A worker (KOPT_COMPILE_CACHE=OUTDIR/cache, empty at the start) captures
models/small_linear_sum.py under Inductor's defaults and under
max-autotune-no-cudagraphs, as a build's capture does. Then, for each
variant, two fresh processes, each on a copy of that cache
(TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR set to it, as
tests/gpu/deploy.py runs on the build's), compile
the same model as a deployment would:

- "torch.compile": the user's own line, torch.compile(model, mode=...,
  dynamic=False), in a process whose float32 flags are the capture's
  (TF32 off, as kopt.worker sets them): Inductor keys its graph cache on
  them;
- "compile_fx": the way kopt.backend compiles, Inductor's compile_fx
  called by a backend of its own under the variant's options
  (kopt.deploy.compile_plain, which compile_with's compile_fx call is
  too, with the table's swaps on top), in a process with torch's own
  flags: kopt.precision.capture_flags must set the capture's for the
  compile, and put torch's back after it (checked too);
- "kopt.backend": kopt.deploy.compile_with, a deployment's compile, with
  a table of the variant and no kernels (its tuning-cache, template and
  rewrite hooks on, as a deployment has them).

Checks, printed as TAP: each compile is one hit of Inductor's graph cache
and no miss (Inductor's counters), so that the deployed code is the code
the build measured, max-autotune's picks included (bench/results/
2026-12-06g-h100-shapes-static: a deployment's 8 compiles missed the
build's entries and picked its GEMM configs again). Where one misses, the
diagnostic names the parts of Inductor's cache key (TORCH_LOGS'
"hash details" of torch._inductor.codecache, logged by the worker and the
process) whose hashes differ.
"""

import json
import os
import re
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "runtime"))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
from tap import ok, done  # noqa: E402
import compile_child  # noqa: E402
from wclient import Worker  # noqa: E402
from kopt import graphkeys as GK  # noqa: E402

MODEL = os.path.join(here, "models", "small_linear_sum.py")
LOGS = {"TORCH_LOGS": "+torch._inductor.codecache"}
VARIANTS = [("default", None), ("autotune", "max-autotune-no-cudagraphs")]

# the child: argv[1] the source tree; the model compiled one way, called
# once, Inductor's graph-cache counters printed as JSON
CHILD = r"""
import json, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "runtime", "python"))
import torch
from torch._dynamo.utils import counters
from kopt.inductor import own_frame
from kopt.loader import load_module, to_device
how, mode, path = os.environ["GC_HOW"], os.environ.get("GC_MODE") or None, os.environ["GC_MODEL"]
mod = load_module(path)
torch.manual_seed(0)
model = mod.Model(*to_device(list(mod.get_init_inputs()))).cuda().eval()
inputs = list(to_device(mod.get_inputs()))
def flags():
    m, d = torch.backends.cuda.matmul, torch.backends.cudnn
    objs = [m, d, getattr(d, "conv", None), getattr(d, "rnn", None)]
    return [getattr(o, "fp32_precision", None) or getattr(o, "allow_tf32", None) for o in objs]
before = flags()
if how == "torch.compile":
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    fn = torch.compile(own_frame(model), mode=mode, dynamic=False)
elif how == "compile_fx":
    from torch._inductor import list_mode_options
    from kopt.deploy import compile_plain
    opts = list_mode_options(mode) if mode else {}
    fn = torch.compile(own_frame(model), backend=lambda gm, ex: compile_plain(gm, ex, opts), dynamic=False)
else:
    from kopt.deploy import Table, compile_with
    table = Table("(a table of the variant alone)", {"variant": json.loads(os.environ["GC_VARIANT"]), "kernels": {}})
    fn = torch.compile(own_frame(model), backend=lambda gm, ex: compile_with(table, gm, ex, {}, False, None, []),
                       dynamic=False)
with torch.no_grad():
    fn(*inputs)
torch.cuda.synchronize()
c = counters["inductor"]
out = {k: c.get(k, 0) for k in ("fxgraph_cache_hit", "fxgraph_cache_miss", "fxgraph_cache_bypass")}
out["flags"] = [str(f) for f in before + flags()]
print(json.dumps(out))
"""

HEADER = re.compile(r"FX graph cache hash details for key (\w+):")
PART = re.compile(r"\] \[(\w{20,})\] ([^:\n]+): ")


def key_parts(log: str) -> list:
    """every 'hash details' block in a log, as kopt.graphkeys records a
    key: [{"key": KEY, "parts": {part: hash}}], each key once"""
    keys, cur = {}, None
    for line in log.splitlines():
        m = HEADER.search(line)
        if m:
            cur = keys.setdefault(m.group(1), {})
            continue
        m = PART.search(line)
        if m and cur is not None:
            cur.setdefault(m.group(2).strip(), m.group(1))
    return [{"key": k, "parts": p} for k, p in keys.items()]


def main():
    worker, outdir = sys.argv[1], sys.argv[2]
    shutil.rmtree(outdir, ignore_errors=True)
    cache = os.path.join(outdir, "cache")
    os.makedirs(cache)
    for variant, mode in VARIANTS:
        log = os.path.join(outdir, f"worker-{variant}.log")
        # the worker's Inductor and Triton caches under KOPT_COMPILE_CACHE
        # (kopt.worker), not a caller's own setting, which would win
        env = {k: v for k, v in os.environ.items() if k not in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")}
        with open(log, "w") as err:
            capture(worker, dict(env, KOPT_COMPILE_CACHE=cache, **LOGS), variant, mode, err)
        with open(log) as f:
            wlog = f.read()
        wkeys = key_parts(wlog)
        bypassed = [line[-200:] for line in wlog.splitlines() if "Bypassing FX Graph Cache" in line][:2]
        for how in ("torch.compile", "compile_fx", "kopt.backend"):
            # each process on a copy of the worker's cache: what one writes
            # on a miss cannot answer the other
            name = f"{variant}-{how.replace('.', '_')}"
            mine = os.path.join(outdir, name + "-cache")
            shutil.copytree(cache, mine)
            r = compile_child.run(CHILD, outdir, name,
                                  dict(LOGS, GC_HOW=how, GC_MODE=mode or "", GC_MODEL=MODEL,
                                       GC_VARIANT=json.dumps(variant_of(variant, mode)),
                                       TORCHINDUCTOR_CACHE_DIR=os.path.join(mine, "inductor"),
                                       TRITON_CACHE_DIR=os.path.join(mine, "triton")))
            hit, miss = r.get("fxgraph_cache_hit", 0), r.get("fxgraph_cache_miss", 0)
            ok(hit >= 1 and miss == 0,
               f"{variant} ({mode or 'Inductor defaults'}) compiled by {how} in a fresh process: "
               f"the worker's graph from the cache ({hit} hit, {miss} miss, "
               f"{r.get('fxgraph_cache_bypass', 0)} bypassed)",
               r.get("failed") or "\n".join(bypassed + GK.differing(wkeys, key_parts(r["stderr"]))))
            if how != "torch.compile":
                f = r.get("flags") or []
                ok(len(f) == 8 and f[:4] == f[4:],
                   f"{variant} by {how}: the process's float32 flags are as they were after kopt's compile ({' '.join(f)})",
                   r.get("failed") or "before: matmul, cudnn, cudnn.conv, cudnn.rnn; then after")
    done()


def variant_of(name, mode) -> dict:
    """the variant as a build's request and its table carry it"""
    return {"name": name, "mode": mode, "options": {}, "aten_fallback": [], "cudnn_benchmark": False}


def capture(worker, env, variant, mode, err):
    """one fresh worker's capture of the model under a variant, as a
    build's; its stderr (with its TORCH_LOGS lines) into err"""
    w = Worker(worker, env=env, stderr=err)
    try:
        w.ask({"op": "capture", "seed": 0, "model": {"name": "small_linear_sum", "kind": "torch", "path": MODEL},
               "variant": variant_of(variant, mode)})
    finally:
        w.close()


if __name__ == "__main__":
    main()
