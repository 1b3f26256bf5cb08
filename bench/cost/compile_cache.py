#!/usr/bin/env python3
"""bench/cost/compile_cache.py: what koptmake's compile cache saves.

    compile_cache.py WORKER CACHE_DIR MODEL.py...

koptmake points every worker's Inductor and Triton caches at the spec's
.kopt/compile (KOPT_COMPILE_CACHE), so a worker that starts again, on this
machine or after `koptmake clean` of other steps, does not compile again
what an earlier one did. This captures each model (default and
max-autotune-no-cudagraphs variants) in a fresh worker with CACHE_DIR empty,
then again in another fresh worker with the cache the first one left, and
prints the wall seconds of each capture, cold and warm. Nothing else is
kept between the two workers: each worker process starts from nothing.
"""
import json
import os
import shutil
import subprocess
import sys
import time

VARIANTS = [{"name": "default", "mode": None, "options": {}, "aten_fallback": [], "cudnn_benchmark": False},
            {"name": "autotune", "mode": "max-autotune-no-cudagraphs", "options": {}, "aten_fallback": [],
             "cudnn_benchmark": False}]


def run(worker: str, models: list[str]) -> dict:
    p = subprocess.Popen([worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    json.loads(p.stdout.readline())
    times = {}
    for i, path in enumerate(models):
        name = os.path.basename(path).removesuffix(".py")
        for v in VARIANTS:
            req = {"id": len(times) + 1, "op": "capture", "seed": 0, "variant": v,
                   "model": {"name": name, "kind": "torch", "path": os.path.abspath(path)}}
            t0 = time.time()
            p.stdin.write(json.dumps(req) + "\n")
            p.stdin.flush()
            rep = json.loads(p.stdout.readline())
            times[f"{name}/{v['name']}"] = (time.time() - t0) if rep.get("ok") else None
    p.stdin.close()
    p.wait()
    return times


def main() -> int:
    worker, cache, models = sys.argv[1], sys.argv[2], sys.argv[3:]
    shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(cache)
    os.environ["KOPT_COMPILE_CACHE"] = os.path.abspath(cache)
    cold = run(worker, models)
    warm = run(worker, models)
    print("| capture | cold (s) | warm (s) |\n| --- | ---: | ---: |")
    for k in cold:
        c, w = cold[k], warm.get(k)
        print(f"| {k} | {c if c is None else f'{c:.1f}'} | {w if w is None else f'{w:.1f}'} |")
    tc = sum(v for v in cold.values() if v)
    tw = sum(v for v in warm.values() if v)
    print(f"| all | {tc:.1f} | {tw:.1f} |")
    return 0 if all(v is not None for v in list(cold.values()) + list(warm.values())) else 1


if __name__ == "__main__":
    sys.exit(main())
