#!/usr/bin/env python3
"""tests/gpu/static_shapes.py: a model served at several shapes compiles
static code at each, in every worker (kopt.inductor.torch_compiled,
dynamic=False).

    static_shapes.py WORKER OUTDIR

One worker, with a compile cache of its own (KOPT_COMPILE_CACHE=OUTDIR/
cache, empty at the start), captures models/small_rowmax.py at batch
sizes 64, 8 and 32 (the request's "shape", as koptmake sends a shape's
steps), one after the other; a second worker, a fresh process on the same
cache, captures batch 16; a third, on a cache of its own, batch 8 alone.
torch.compile left at dynamic=None had made every shape after the first
dynamic (symbolic sizes, remembered per file in the cache), so that the
kernels koptmake searched were not the ones a deployment compiles per
shape. Checks, printed as TAP:

- every capture's output code has its batch size as a number and no
  symbolic size (`s` and digits as a size);
- each kernel's source at batch 8 after two other shapes is the source
  at batch 8 alone in a fresh process and cache (its source hash);
- the sizes the kernels see differ across shapes: no kernel source at one
  of 64, 8, 32 and 16 is a kernel source at another, and each has one
  (Inductor may split a reduction into two kernels at a shape of few rows:
  batch 8's two kernels on an H100).
"""

import json
import os
import re
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "runtime"))
from tap import ok, done  # noqa: E402
from wclient import Worker  # noqa: E402

SYMBOLIC = re.compile(r"\bs\d+\b")  # Inductor's symbolic sizes: s0, s77, ...


def captures(worker, env, sizes):
    """The replies of one fresh worker to a capture at each batch size."""
    w = Worker(worker, env=env)
    model = {"name": "small_rowmax", "kind": "torch", "path": os.path.join(here, "models", "small_rowmax.py")}
    variant = {"name": "default", "mode": None, "options": {}, "aten_fallback": [], "cudnn_benchmark": False}
    try:
        return [w.ask({"op": "capture", "seed": 0, "model": dict(model, shape={"batch_size": b}), "variant": variant})
                for b in sizes]
    finally:
        w.close()


def hashes(cap):
    return sorted(k["source_hash"] for k in cap["kernels"] if k.get("kind") == "triton")


def main():
    worker, outdir = sys.argv[1], sys.argv[2]
    shutil.rmtree(outdir, ignore_errors=True)
    for d in ("cache", "alone"):
        os.makedirs(os.path.join(outdir, d))
    env = dict(os.environ, KOPT_COMPILE_CACHE=os.path.join(outdir, "cache"))
    first = captures(worker, env, [64, 8, 32])
    second = captures(worker, env, [16])
    alone = captures(worker, dict(os.environ, KOPT_COMPILE_CACHE=os.path.join(outdir, "alone")), [8])
    with open(os.path.join(outdir, "captures.json"), "w") as f:
        json.dump({"first": first, "second": second, "alone": alone}, f, indent=1)
    for b, cap in zip([64, 8, 32, 16], first + second):
        code = cap["output_code"]
        sym = sorted(set(SYMBOLIC.findall(code)))
        ok(not sym and f"({b}, 512, 1023)" in code,
           f"batch {b}: static code (its size a number, no symbolic size)", sym[:5])
    ok(hashes(first[1]) == hashes(alone[0]) and hashes(alone[0]),
       "batch 8 after batch 64, in the same worker and cache: the kernels of batch 8 alone in a fresh one",
       (hashes(first[1]), hashes(alone[0])))
    per = [hashes(cap) for cap in first + second]
    every = [h for hs in per for h in hs]
    ok(all(per) and len(set(every)) == len(every),
       "four shapes, no kernel source shared between two: each its own sizes", per)
    done()


if __name__ == "__main__":
    main()
