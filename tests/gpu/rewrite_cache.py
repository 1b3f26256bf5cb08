#!/usr/bin/env python3
"""tests/gpu/rewrite_cache.py: a rewrite's variant through Inductor's graph
cache (runtime/python/kopt/rewrites.py, "applied").

    rewrite_cache.py WORKER OUTDIR

With a compile cache of its own (KOPT_COMPILE_CACHE=OUTDIR/cache, empty at
the start), a first worker captures models/small_tconv.py in its rewrite's
variant (max-autotune with kopt.conv_transpose_as_conv) and in plain
max-autotune; a second worker, a fresh process on the same cache, captures
both again. Checks, printed as TAP:

- the rewrite's variant compiles again from the cache: the second
  capture's lowering and Triton compiles at most half the first's, with
  the same output code (the kernels' names and the extern calls), and its
  launch configs from the autotuning cache (its tuning at most half the
  first's, or a quarter second);
- the cache does not hand one variant the other's code: the rewrite's
  output code has no transposed convolution, max-autotune's has one, in
  both workers;
- the same with the linear-reduction fold, a graph pass
  (models/small_linear_sum.py: no GEMM left, and max-autotune's keeps one).

Each capture's compile time is printed.
"""

import json
import os
import re
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "runtime"))
from tap import ok, done  # noqa: E402

AT = "max-autotune-no-cudagraphs"


def captures(worker, env, reqs):
    """The replies of one fresh worker to the capture requests."""
    p = subprocess.Popen([worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    json.loads(p.stdout.readline())  # hello
    out = []
    for i, r in enumerate(reqs):
        p.stdin.write(json.dumps(dict(r, id=i + 1)) + "\n")
        p.stdin.flush()
        rep = json.loads(p.stdout.readline())
        if not rep.get("ok"):
            raise RuntimeError(f"capture {r['variant']['name']}: {rep.get('error')}")
        out.append(rep["result"])
    p.stdin.close()
    p.wait(timeout=120)
    return out


def lowering(cap):
    """What Inductor's graph cache saves a capture: its lowering and
    Triton's compiles (kopt.compile_time's inductor_s and triton_s; the
    Dynamo trace is not cached, and the first run's tuning is the
    autotuning cache's)"""
    ph = cap.get("compile_phases") or {}
    return float(ph.get("inductor_s", 0)) + float(ph.get("triton_s", 0))


def tuning(cap):
    """Seconds a capture spent timing candidates (autotune_s)"""
    return float((cap.get("compile_phases") or {}).get("autotune_s", 0))


def shape(code):
    """What identifies compiled code across processes: its kernels' names
    and its extern calls, in order."""
    return re.findall(r"\b(triton_\w+_\d+|extern_kernels\.\w+|aten\.\w+)", code)


def main():
    worker, outdir = sys.argv[1], sys.argv[2]
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(os.path.join(outdir, "cache"))
    env = dict(os.environ, KOPT_COMPILE_CACHE=os.path.join(outdir, "cache"))
    cases = (("small_tconv", "conv_transpose_as_conv", re.compile(r"transposed=True")),
             ("small_linear_sum", "linear_reduction_fold", re.compile(r"extern_kernels\.(mm|addmm|bmm)|triton_tem_")))
    reqs = []
    for model, rewrite, _ in cases:
        m = {"name": model, "kind": "torch", "path": os.path.join(here, "models", f"{model}.py")}
        reqs.append({"op": "capture", "model": m, "seed": 0,
                     "variant": {"name": f"autotune-{rewrite}", "mode": AT, "options": {f"kopt.{rewrite}": True},
                                 "aten_fallback": [], "cudnn_benchmark": False}})
        reqs.append({"op": "capture", "model": m, "seed": 0,
                     "variant": {"name": "autotune", "mode": AT, "options": {}, "aten_fallback": [],
                                 "cudnn_benchmark": False}})
    first = captures(worker, env, reqs)
    second = captures(worker, env, reqs)
    with open(os.path.join(outdir, "captures.json"), "w") as f:
        json.dump({"first": first, "second": second}, f, indent=1)
    for i, (model, rewrite, plain_mark) in enumerate(cases):
        rw1, at1, rw2, at2 = first[2 * i], first[2 * i + 1], second[2 * i], second[2 * i + 1]
        print(f"# {model}: {rewrite} {rw1['compile_s']} s then {rw2['compile_s']} s; "
              f"max-autotune {at1['compile_s']} s then {at2['compile_s']} s", flush=True)
        low1, low2 = lowering(rw1), lowering(rw2)
        ok(low2 <= low1 / 2,
           f"{model}: the rewrite's variant compiles again from the graph cache: its lowering and Triton's "
           f"compiles {low1:.3f} s, then {low2:.3f} s ({rw1['compile_s']} s, then {rw2['compile_s']} s in all)")
        tune1, tune2 = tuning(rw1), tuning(rw2)
        ok(tune2 <= max(tune1 / 2, 0.25),
           f"{model}: ... and its launch configs from the autotuning cache: tuned {tune1:.3f} s, then {tune2:.3f} s",
           (rw1["compile_phases"].get("spans"), rw2["compile_phases"].get("spans")))
        ok(shape(rw1["output_code"]) == shape(rw2["output_code"]),
           f"{model}: ... to the same code", (shape(rw1["output_code"]), shape(rw2["output_code"])))
        ok(not plain_mark.search(rw1["output_code"]) and not plain_mark.search(rw2["output_code"]),
           f"{model}: the rewrite's code has what it rewrites away in neither worker",
           plain_mark.findall(rw2["output_code"])[:5])
        ok(bool(plain_mark.search(at1["output_code"])) and bool(plain_mark.search(at2["output_code"])),
           f"{model}: max-autotune's code keeps it in both: the cache gave neither variant the other's",
           (plain_mark.findall(at1["output_code"]), plain_mark.findall(at2["output_code"])))
    done()


if __name__ == "__main__":
    main()
