#!/usr/bin/env python3
"""tests/gpu/transforms.py: the kernel transforms (kopt.transforms) on real
Inductor kernels, timed against Inductor's own on the GPU.

    transforms.py WORKER OUTDIR

Captures each model (tests/gpu/models/var_norm.py: a norm whose variance
is written out; long_norm.py: a layer norm over rows of 65536 and an L1
norm over rows of 65535; instance_norm.py; the examples' layer norm, RMS
norm and softmax) under Inductor's defaults and max-autotune-no-cudagraphs,
and screens every Triton kernel that a transform applies to
(kopt.transforms.applies) with those transforms as the request's
"transforms" (PROTOCOL.md "screen"): each is measured first, at the
kernel's own config, on the arguments of a real call, checked against
Inductor's kernel (every output, at the gates' tolerances) and timed
beside it (CUPTI, interleaved, the L2 flushed); the screen's search then
moves it with the launch keys and the grid for the rest of the budget.
TAP:

- each model's kernels: the transforms expected there apply (var_norm's
  looped reduction takes onepass=welford and onepass=sumsq; a looped
  norm over rows too long to persist takes rloop=reverse);
- each transform's point compiled, ran and gave Inductor's outputs;
- no point with a transform failed to build or gave other outputs;
- each best point with an edit carries the edit's text on the captured
  source, and gate 1 passes it.

The figures are what the run is for, printed as comments: each
transform's time alone at the kernel's own config against Inductor's
kernel ("# KERNEL EDIT at own: 1.234x alone (Inductor 123.4 us, it 100.0
us)"), and the screen's best with a transform ("# ... best: ..."), the
table at the end.

Then the rewrites' own kernels (issue 39, item 2): tests/gpu/models/
small_depthwise.py under max-autotune with kopt.depthwise_as_pointwise:
its capture lists Inductor's kernels of the rewritten graph with their
source and config, and a screen of the hottest runs and matches; and
small_attention.py under kopt.flash_attention: kopt::attention's own
Triton kernel is of kind "kopt" (koptmake's, tuned by its op), not
"vendor".

Replies go to OUTDIR (reply-N-OP.json). KOPT_TRANSFORMS_BUDGET: seconds
per screen (default 60; 40 points at most).
"""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.join(here, "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import knobs as N  # noqa: E402
from kopt import static_gate as G  # noqa: E402
from kopt import transforms as T  # noqa: E402
sys.path.insert(0, os.path.join(here, "..", "runtime"))
import tap  # noqa: E402
sys.path.insert(0, here)
from wclient import Worker  # noqa: E402
from tap import ok  # noqa: E402

DEFAULT = {"name": "default", "mode": None, "options": {}, "aten_fallback": [], "cudnn_benchmark": False}
AUTOTUNE = {"name": "autotune", "mode": "max-autotune-no-cudagraphs", "options": {}, "aten_fallback": [],
            "cudnn_benchmark": False}
GATES = {"seeds": 3, "atol": 1e-4, "rtol": 1e-4, "atol_half": 1e-2, "rtol_half": 1e-2, "fp64_fallback": True,
         "gamma": 1.03, "repeats": 10, "precision": "strict", "min_pairs": 5}
# (model path, the transforms that must apply to one of its kernels)
MODELS = ((os.path.join(here, "models", "var_norm.py"), {"onepass"}),
          (os.path.join(here, "models", "long_norm.py"), {"rloop"}),
          (os.path.join(here, "models", "instance_norm.py"), set()),
          (os.path.join(top, "examples", "models", "layernorm.py"), set()),
          (os.path.join(top, "examples", "models", "rmsnorm.py"), set()),
          (os.path.join(top, "examples", "models", "softmax.py"), set()))
BUDGET = float(os.environ.get("KOPT_TRANSFORMS_BUDGET", "60"))
RESOURCES = ("out of resource", "outofresources", "shared memory")


def asked(src: str) -> list[dict]:
    """The transforms to try on a kernel: each value of each transform
    that applies, alone, and rloop with persist's rival left out; as the
    analyst's request would carry them."""
    out = []
    applies, _ = T.applies(src)
    for kind, values in applies.items():
        for v in values:
            out.append({"edit": f"{kind}={v}", "why": "tests/gpu/transforms.py: every transform that applies"})
    return out


def screen(w, model, var, k, table):
    """One kernel's screen with its transforms; the TAP lines and figures."""
    src = k["source"]
    tr = asked(src)
    name = k["name"]
    res = w.ask({"op": "screen", "model": model, "variant": var, "seed": 0, "kernel": name, "gates": GATES,
                 "starts": [], "budget_s": BUDGET, "max_configs": 40, "keep": 3, "reps": 7, "knobs": True,
                 "transforms": tr})
    rows = res["tried"]
    own = res.get("own")
    for t in tr:
        at_own = [r for r in rows if r.get("edit") == t["edit"] and r.get("transform")]
        good = [r for r in at_own if r.get("ok")]
        ok(good, f"{var['name']} {name}: {t['edit']}: compiled, ran and gave Inductor's outputs",
           [(r.get("config"), r.get("error")) for r in at_own] or res.get("refused"))
        for r in good[:1]:
            print(f"# {var['name']} {name} {t['edit']} at {r['config']}: {r['speedup']:.3f}x alone "
                  f"(Inductor {r['base_ns'] / 1e3:.1f} us, it {r['ns'] / 1e3:.1f} us)", flush=True)
            table.append((var["name"], name, t["edit"], "first", r["speedup"]))
    transformed = [r for r in rows if any(x in (r.get("edit") or "") for x in T.KINDS)]
    wrong = [r for r in transformed if "differ" in (r.get("error") or "")]
    ok(not wrong, f"{var['name']} {name}: no transform changed the outputs ({len(transformed)} points)",
       [(r["edit"], r["config"]) for r in wrong])
    broken = [r for r in transformed if not r.get("ok") and "differ" not in (r.get("error") or "")
              and not any(x in (r.get("error") or "").lower() for x in RESOURCES)]
    ok(not broken, f"{var['name']} {name}: every transformed point built and ran",
       [(r["edit"], r.get("error")) for r in broken])
    best = max((r for r in transformed if r.get("ok")), key=lambda r: r["speedup"], default=None)
    if best:
        print(f"# {var['name']} {name} best with a transform: {best['edit']} at {best['config']}: "
              f"{best['speedup']:.3f}x alone (own config {own})", flush=True)
        table.append((var["name"], name, best["edit"], "best", best["speedup"]))
    for b in res["best"]:
        if b.get("edit"):
            same = b.get("source") == N.apply(src, b["edit"])
            passed, why = G.check(b.get("source") or "", src)
            ok(same and passed, f"{var['name']} {name}: best {b['edit']} carries its text and gate 1 passes it", why)


def rewrites(w):
    """The rewrites' own kernels are kernels like any other (issue 39 item 2)."""
    dw = {"name": "small_depthwise", "kind": "torch", "path": os.path.join(here, "models", "small_depthwise.py")}
    var = dict(AUTOTUNE, name="autotune-depthwise-as-pointwise", options={"kopt.depthwise_as_pointwise": True})
    cap = w.ask({"op": "capture", "model": dw, "variant": var, "seed": 0})
    triton = [k for k in cap["kernels"] if k["kind"] == "triton" and k.get("config") and k.get("source")]
    ok(triton, "the depthwise rewrite's variant: Inductor's kernels of the rewritten graph, with source and config",
       [(k["name"], k["kind"]) for k in cap["kernels"]])
    if triton:
        k = triton[0]
        res = w.ask({"op": "screen", "model": dw, "variant": var, "seed": 0, "kernel": k["name"], "gates": GATES,
                     "starts": [], "budget_s": min(BUDGET, 30), "max_configs": 20, "keep": 3, "reps": 7,
                     "knobs": True})
        good = [r for r in res["tried"] if r.get("ok")]
        ok(good, f"the depthwise rewrite's {k['name']}: screened like any kernel ({len(good)} points matched)",
           res.get("error"))
    at = {"name": "small_attention", "kind": "torch", "path": os.path.join(here, "models", "small_attention.py")}
    var = dict(AUTOTUNE, name="autotune-flash-attention", options={"kopt.flash_attention": True})
    cap = w.ask({"op": "capture", "model": at, "variant": var, "seed": 0})
    own = [k for k in cap["kernels"] if k["name"].startswith("kopt_")]
    if not own:
        tap.skip("kopt::attention's kernel is of kind kopt", "the rewrite did not take this model's attention")
    else:
        ok(all(k["kind"] == "kopt" for k in own), "kopt::attention's own Triton kernel is of kind kopt, not vendor",
           [(k["name"], k["kind"]) for k in own])


def main():
    worker, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    w = Worker(worker, outdir)
    table = []
    try:
        for path, want in MODELS:
            mname = os.path.splitext(os.path.basename(path))[0]
            model = {"name": mname, "kind": "torch", "path": path}
            for var in (DEFAULT, AUTOTUNE):
                cap = w.ask({"op": "capture", "model": model, "variant": var, "seed": 0})
                triton = [k for k in cap["kernels"] if k["kind"] == "triton" and k.get("config") and k.get("source")]
                found = {kind for k in triton for kind in T.applies(k["source"])[0]}
                ok(want <= found, f"{mname} {var['name']}: the transforms {sorted(want)} apply to a kernel "
                   f"({sorted(found)} do)", [(k["name"], T.applies(k["source"])[1]) for k in triton])
                for k in triton:
                    if T.applies(k["source"])[0]:
                        screen(w, model, var, k, table)
        rewrites(w)
    finally:
        w.close()
    print("# | variant | kernel | transform | at | speedup alone |", flush=True)
    for row in table:
        print("# | %s | %s | %s | %s | %.3fx |" % row, flush=True)
    tap.done()


if __name__ == "__main__":
    main()
