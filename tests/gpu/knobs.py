#!/usr/bin/env python3
"""tests/gpu/knobs.py: the source knobs (kopt.knobs) screened on the GPU.

    knobs.py WORKER OUTDIR

Captures three example models (a layer norm: a looped reduction; an
elementwise model: a pointwise kernel; a matmul with an epilogue under
max-autotune with Triton GEMMs only: a GEMM template), then screens every Triton kernel of
each with the knobs (PROTOCOL.md "screen", "knobs": true) and a budget that
covers the first round of moves: every knob one move away from Inductor's
source. Checks, printed as TAP:

- the screen searched every knob the kernel has, and maxnreg;
- each knob kind (evict, cache, rstages, runroll, persist and grid on a
  looped reduction, tile on a GEMM template, maxnreg) has a point that compiled,
  ran and matched Inductor's kernel;
- no point with an edit gave other outputs than Inductor's kernel (the
  knobs do not change what the kernel computes), and none failed to build
  but for a tile too large for the shared memory;
- maxnreg took: no point that sets it reads more registers than it allows;
- each best point with an edit carries the edit's text on the captured
  source (kopt.knobs.apply), and gate 1 passes it;
- with compile children (kopt.precompile, KOPT_COMPILE_JOBS), some points
  were compiled ahead, and such a point loads faster (Triton's cache) than
  one the worker compiled itself (each kernel's figures printed, with
  where the loads' time went: Triton's compile or cache read, the
  launchers' build).

A knob kind that no point tried before a short budget ran out is skipped
(TAP's SKIP), not failed.

Replies go to OUTDIR (reply-N-OP.json); the speedups alone of the knobs
are printed as comments, for the record. KOPT_KNOBS_BUDGET: seconds per
screen (default 90; 70 points at most either way).
"""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.join(here, "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import knobs as N  # noqa: E402
from kopt import precompile as P  # noqa: E402
from kopt import static_gate as G  # noqa: E402
sys.path.insert(0, os.path.join(here, "..", "runtime"))
import tap  # noqa: E402
sys.path.insert(0, here)
from wclient import Worker  # noqa: E402
from tap import ok  # noqa: E402

V = {"name": "default", "mode": None, "options": {}, "aten_fallback": [], "cudnn_benchmark": False}
GATES = {"seeds": 3, "atol": 1e-4, "rtol": 1e-4, "atol_half": 1e-2, "rtol_half": 1e-2, "fp64_fallback": True,
         "gamma": 1.03, "repeats": 10, "precision": "strict", "min_pairs": 5}
VT = {"name": "tem", "mode": "max-autotune-no-cudagraphs", "options": {"max_autotune_gemm_backends": "TRITON"},
      "aten_fallback": [], "cudnn_benchmark": False}
MODELS = (("layernorm", V), ("elementwise", V), ("matmul_epilogue", VT))
BUDGET = float(os.environ.get("KOPT_KNOBS_BUDGET", "90"))  # seconds per kernel's screen
RESOURCES = ("out of resource", "outofresources", "shared memory")
SMS = 0


def kind_of(row):
    kinds = N.kinds(row.get("edit") or "")
    if row.get("config", {}).get("maxnreg"):
        kinds.append("maxnreg")
    return kinds


def main():
    global SMS
    import torch

    SMS = torch.cuda.get_device_properties(0).multi_processor_count  # the screen's grid=G values
    worker, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    w = Worker(worker, outdir)
    try:
        for mname, var in MODELS:
            model = {"name": mname, "kind": "torch", "path": os.path.join(top, "examples", "models", f"{mname}.py")}
            cap = w.ask({"op": "capture", "model": model, "variant": var, "seed": 0})
            triton = [k for k in cap["kernels"] if k["kind"] == "triton" and k.get("config")]
            ok(bool(triton), f"{mname}: captured Triton kernels with launch configs", [k["name"] for k in cap["kernels"]])
            if var is VT:
                ok(any(k["heuristic"] == "template" for k in triton), f"{mname}: a GEMM template among them",
                   [(k["name"], k["heuristic"]) for k in triton])
            for k in triton:
                res = w.ask({"op": "screen", "model": model, "variant": var, "seed": 0, "kernel": k["name"],
                             "gates": GATES, "starts": [], "budget_s": BUDGET, "max_configs": 70, "keep": 3,
                             "reps": 7, "knobs": True})
                src = k["source"]
                space = N.space(src, SMS)
                want = {N.kinds(f"{x}={space[x][1]}")[0] for x in space} | {"maxnreg"}
                ok(set(res.get("knobs") or []) == set(space) | {"maxnreg"},
                   f"{k['name']}: the screen searched every knob it has ({len(space)}) and maxnreg", res.get("knobs"))
                rows = res["tried"]
                for kind in sorted(want):
                    mine = [r for r in rows if kind in kind_of(r)]
                    good = [r for r in mine if r.get("ok")]
                    if not mine and res.get("budget_spent"):
                        # a short budget (KOPT_KNOBS_BUDGET) ended the screen first
                        tap.skip(f"{k['name']}: {kind}", f"no point tried before the budget of {BUDGET:g} s ran out")
                        continue
                    ok(good, f"{k['name']}: {kind}: {len(good)} of {len(mine)} points compiled, ran and matched "
                             f"Inductor's kernel", [(r.get("edit"), r.get("config"), r.get("error")) for r in mine])
                    for r in sorted(good, key=lambda r: -r["speedup"])[:2]:
                        print(f"# {k['name']} {r.get('edit') or ''} {r['config']}: {r['speedup']:.3f}x alone", flush=True)
                edited = [r for r in rows if r.get("edit")]
                wrong = [r for r in edited if "differ" in (r.get("error") or "")]
                ok(not wrong, f"{k['name']}: no knob changed the outputs ({len(edited)} points with edits)",
                   [(r["edit"], r["config"]) for r in wrong])
                broken = [r for r in edited if not r.get("ok") and "differ" not in (r.get("error") or "")
                          and not any(x in (r.get("error") or "").lower() for x in RESOURCES)]
                ok(not broken, f"{k['name']}: every edit built and ran", [(r["edit"], r.get("error")) for r in broken])
                over = [r for r in rows if r.get("config", {}).get("maxnreg") and
                        (("n_regs" in r and r["n_regs"] > r["config"]["maxnreg"]) or "not applied" in (r.get("error") or ""))]
                ok(not over, f"{k['name']}: maxnreg took (no point over its register budget)",
                   [(r["config"], r.get("n_regs"), r.get("error")) for r in over])
                ahead = [r["load_s"] for r in rows if r.get("prefetched") and "load_s" in r]
                own = [r["load_s"] for r in rows if not r.get("prefetched") and "load_s" in r]
                med = lambda xs: sorted(xs)[len(xs) // 2] if xs else float("nan")  # noqa: E731
                print(f"# {k['name']}: {len(rows)} points in {res.get('elapsed_s')} s, {res.get('compiles')} compiles, "
                      f"{len(ahead)} compiled ahead by the children (load {med(ahead):.3f} s, median) and "
                      f"{len(own)} by the worker ({med(own):.3f} s)", flush=True)
                for who, pre in (("ahead", True), ("own", False)):
                    parts = [r["load_parts"] for r in rows if bool(r.get("prefetched")) == pre and "load_parts" in r]
                    if parts:
                        print(f"#   {who}: Triton's compile or cache read {med([x['compile_s'] for x in parts]):.3f} s, "
                              f"launchers {med([x['launchers_s'] for x in parts]):.3f} s (medians)", flush=True)
                if P.default_jobs() > 0:
                    ok(ahead, f"{k['name']}: the compile children compiled points ahead ({len(ahead)})",
                       res.get("prefetched"))
                    # Triton's listener says whether its cache answered; the
                    # times are the test where this Triton has none
                    told = [r for r in rows if r.get("prefetched") and "cache_hit" in (r.get("load_parts") or {})]
                    if told:
                        missed = [r for r in told if not r["load_parts"]["cache_hit"]]
                        print(f"#   Triton's cache answered {len(told) - len(missed)} of {len(told)} points compiled "
                              f"ahead", flush=True)
                        for r in missed[:3]:
                            print(f"#   missed {r['config']} {r.get('edit') or ''}: {r.get('ahead_missed')}", flush=True)
                        ok(not missed, f"{k['name']}: every point compiled ahead is read from Triton's cache",
                           [r.get("ahead_missed") for r in missed[:3]])
                    elif ahead and own:
                        ok(med(ahead) < med(own), f"{k['name']}: a point compiled ahead loads from Triton's cache, "
                           f"faster than a compile of the worker's own", (med(ahead), med(own)))
                for b in res["best"]:
                    if not b.get("edit"):
                        continue
                    same = b.get("source") == N.apply(src, b["edit"])
                    passed, why = G.check(b.get("source") or "", src)
                    ok(same and passed, f"{k['name']}: best {b['edit']} carries its text and gate 1 passes it", why)
    finally:
        w.close()
    tap.done()


if __name__ == "__main__":
    main()
