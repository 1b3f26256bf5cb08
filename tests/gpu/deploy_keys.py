#!/usr/bin/env python3
"""tests/gpu/deploy_keys.py: a deployment served at several shapes, its
compiles one after another in one process, is served by the graphs a
build's worker compiled, one after another too.

    deploy_keys.py WORKER OUTDIR

graph_cache.py shows one compile in a fresh process hitting a worker's
graph. A deployment does more in one process (tests/gpu/deploy.py,
check_shaped): at each declared shape, torch.compile's baseline
(Inductor's defaults) and kopt.backend's compile of the variant chosen for
that shape, frame after frame, shape after shape; and a build's worker
captures one request after another. bench/shapes' deployment found 2 or
3 of 8 such compiles served by the build's cache (bench/results/
2026-12-06h-h100-graph-cache), against every one of graph_cache.py's.

One worker (KOPT_COMPILE_CACHE=OUTDIR/cache, empty at the start) captures
models/small_block_shapes.py (bfloat16 parameters, a GEMM, a norm: a
decoder block's kinds of graph input and kernel) at batch 64 then 8,
each under Inductor's defaults, max-autotune-no-cudagraphs and that with
Inductor's CUDA graphs (the GPT-2 block's winning variant in
bench/shapes), as a build's worker serves them. Then, on copies of that cache:

- "sequence": one fresh process compiles as deploy.py does: at batch 64
  torch.compile's baseline, then kopt.backend with the CUDA-graphs
  variant; at batch 8 the baseline, then kopt.backend with
  max-autotune-no-cudagraphs;
- "alone": each of those four compiles in a fresh process of its own.

Its worker is started by hand, with the test's whole environment, as
graph_cache.py's is; a build's workers get the sandbox's list of
variables (runtime/sandbox.c), so a variable that Inductor's key reads
and the list drops (CXX, before it was kept) is not seen here: bench/
shapes' deployment check, whose keys come from a real build, found that
one (bench/results/2026-12-06k-h200-shapes).

Checks, printed as TAP: each compile is one hit of Inductor's graph cache
and no miss. Where one misses, the diagnostic names the parts of
Inductor's key whose hashes differ from the worker's key nearest to it
(kopt.graphkeys in the process; TORCH_LOGS' hash details in the worker),
and the same compile alone comes after: one that hits alone and misses
in the sequence says the process's earlier compiles changed its key.
"""

import json
import os
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "runtime"))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
from tap import ok, done  # noqa: E402
import compile_child  # noqa: E402
from graph_cache import key_parts, LOGS  # noqa: E402
from wclient import Worker  # noqa: E402
from kopt import graphkeys as GK  # noqa: E402

MODEL = os.path.join(here, "models", "small_block_shapes.py")
AUTOTUNE = "max-autotune-no-cudagraphs"
VARIANTS = {
    "default": {"name": "default", "mode": None, "options": {}},
    "autotune": {"name": "autotune", "mode": AUTOTUNE, "options": {}},
    "autotune-cudagraphs": {"name": "autotune-cudagraphs", "mode": AUTOTUNE, "options": {"triton.cudagraphs": True}},
}
for _v in VARIANTS.values():
    _v.update(aten_fallback=[], cudnn_benchmark=False)
SIZES = (64, 8)
# deploy.py's order: at each shape the baseline, then the shape's winner
PLAN = [(64, "torch.compile", "default"), (64, "kopt.backend", "autotune-cudagraphs"),
        (8, "torch.compile", "default"), (8, "kopt.backend", "autotune")]

# the child: argv[1] the source tree; DK_PLAN's compiles in order, each
# called once, its graph-cache counts and the keys it looked up printed
CHILD = r"""
import json, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "runtime", "python"))
import torch
from torch._inductor.compile_fx import compile_fx
from kopt import graphkeys as GK
from kopt.deploy import Table, compile_with, graph_counts
from kopt.inductor import own_frame
from kopt.loader import apply_shape, load_module, to_device
path, plan, variants = os.environ["DK_MODEL"], json.loads(os.environ["DK_PLAN"]), json.loads(os.environ["DK_VARIANTS"])
GK.install()
torch.backends.cuda.matmul.allow_tf32 = False   # as deploy.py sets them
torch.backends.cudnn.allow_tf32 = False
mod = load_module(path)
torch.manual_seed(0)
model = mod.Model(*to_device(list(mod.get_init_inputs()))).cuda().eval()
tables = {size: Table(f"(batch {size})", {"variant": variants[v], "kernels": {}, "shape": f"b{size}"})
          for size, how, v in plan if how == "kopt.backend"}
state = {}
base = torch.compile(own_frame(model), backend=lambda gm, ex: compile_fx(gm, ex), dynamic=False)
opt = torch.compile(own_frame(model), backend=lambda gm, ex: compile_with(tables[state["size"]], gm, ex, {}, False,
                                                                           None, []), dynamic=False)
out = []
for size, how, v in plan:
    apply_shape(mod, {"batch_size": size}, path)
    torch.manual_seed(0)
    inputs = list(to_device(mod.get_inputs()))
    state["size"] = size
    h0, m0 = graph_counts()
    GK.take()
    with torch.no_grad():
        (base if how == "torch.compile" else opt)(*inputs)
    torch.cuda.synchronize()
    h1, m1 = graph_counts()
    out.append({"size": size, "how": how, "variant": v, "hit": h1 - h0, "miss": m1 - m0, "keys": GK.take()})
print(json.dumps({"compiles": out}))
"""


def captures(worker, env, err):
    """one worker's captures at each size under each variant, in turn"""
    w = Worker(worker, env=env, stderr=err)
    model = {"name": "small_block_shapes", "kind": "torch", "path": MODEL}
    try:
        for size in SIZES:
            for v in VARIANTS.values():
                w.ask({"op": "capture", "seed": 0, "model": dict(model, shape={"batch_size": size}), "variant": v})
    finally:
        w.close()


def child(outdir, cache, name, plan):
    """the plan's compiles in one fresh process on a copy of cache: the
    child's list, or [{"failed": ...}]"""
    mine = os.path.join(outdir, name + "-cache")
    shutil.copytree(cache, mine)
    r = compile_child.run(CHILD, outdir, name,
                          {"DK_MODEL": MODEL, "DK_PLAN": json.dumps(plan), "DK_VARIANTS": json.dumps(VARIANTS),
                           "TORCHINDUCTOR_CACHE_DIR": os.path.join(mine, "inductor"),
                           "TRITON_CACHE_DIR": os.path.join(mine, "triton")})
    if "failed" in r:
        return [{"failed": r["failed"]}] * len(plan)
    return r["compiles"]


def check(size, how, variant, where, r, wkeys):
    """one compile's TAP line: served by the cache, else the key parts
    that differ from the worker's nearest key"""
    hit, miss = r.get("hit", 0), r.get("miss", 0)
    ok(hit >= 1 and miss == 0,
       f"batch {size}, {how} ({variant}) {where}: the worker's graph from the cache ({hit} hit, {miss} miss)",
       r.get("failed") or "\n".join(GK.differing(wkeys, r.get("keys") or [])))


def main():
    worker, outdir = sys.argv[1], sys.argv[2]
    shutil.rmtree(outdir, ignore_errors=True)
    cache = os.path.join(outdir, "cache")
    os.makedirs(cache)
    env = {k: v for k, v in os.environ.items() if k not in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")}
    log = os.path.join(outdir, "worker.log")
    with open(log, "w") as err:
        captures(worker, dict(env, KOPT_COMPILE_CACHE=cache, **LOGS), err)
    with open(log) as f:
        wkeys = key_parts(f.read())
    ok(len(wkeys) >= len(SIZES) * len(VARIANTS),
       f"the worker's {len(SIZES) * len(VARIANTS)} captures each looked up a key ({len(wkeys)} keys in its log)")
    # the sequence first, then each compile alone, each checked as it
    # comes (a run stopped by its time limit keeps what it printed)
    seq = child(outdir, cache, "sequence", PLAN)
    for i, (size, how, v) in enumerate(PLAN):
        check(size, how, v, "in sequence", seq[i], wkeys)
    for i, (size, how, v) in enumerate(PLAN):
        check(size, how, v, "alone", child(outdir, cache, f"alone-{i}", [PLAN[i]])[0], wkeys)
    done()


if __name__ == "__main__":
    main()
