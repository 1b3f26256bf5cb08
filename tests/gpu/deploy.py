#!/usr/bin/env python3
"""tests/gpu/deploy.py: the one-line deployment in a plain Python process.

    deploy.py SPEC_DIR [--report REL] [--sources P=DIR,...] [--within F] [--tol T] [MODEL...]

For each model of SPEC_DIR/kopt-out/all/report.json (--report: another
report, relative to SPEC_DIR) that koptmake optimized:
torch.compile(model) (Inductor's defaults, the report's baseline) against
torch.compile(model, backend=kopt.backend("kopt-out/<model>")), timed side by
side (interleaved, L2 flushed, median of 30 CUDA-event timings), outputs
compared with the strict tolerances (--tol: the spec's, KernelBench's 1e-2).
A model's source is SPEC_DIR/models/<model>.py, or, for a model named
P/NAME with --sources P=DIR, SPEC_DIR/DIR/NAME.py (the beyond benchmark:
l1=sample/level1,...). A model passes when its outputs are close and the
measured speedup is within F (default 0.10; the issue's check 0.05) of the
report's. Prints TAP and a table: the measured speedup next to the one the
report claims.
"""
import argparse
import json
import os
import statistics
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
import kopt  # noqa: E402
from kopt.loader import load_module, to_device  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("spec_dir")
ap.add_argument("models", nargs="*")
ap.add_argument("--report", default=os.path.join("kopt-out", "all", "report.json"))
ap.add_argument("--sources", default="")
ap.add_argument("--within", type=float, default=0.10)
ap.add_argument("--tol", type=float, default=None)
args = ap.parse_args()
spec_dir = args.spec_dir
only = set(args.models)
sources = dict(x.split("=", 1) for x in args.sources.split(",") if "=" in x)
report = json.load(open(os.path.join(spec_dir, args.report)))


def source_of(name):
    prefix, _, rest = name.partition("/")
    if rest and prefix in sources:
        return os.path.join(spec_dir, sources[prefix], rest + ".py")
    return os.path.join(spec_dir, "models", name + ".py")

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
flush = torch.empty(64 << 20, dtype=torch.int32, device="cuda")
n = bad = 0
rows = []
for m in report["models"]:
    name = m["model"]
    if m.get("verdict") != "optimized" or (only and name not in only):
        continue
    outdir = os.path.join(spec_dir, "kopt-out", name)
    src = source_of(name)
    mod = load_module(src)
    torch.manual_seed(0)
    model = mod.Model(*to_device(list(mod.get_init_inputs()))).cuda().eval()
    torch.manual_seed(0)
    inputs = list(to_device(mod.get_inputs()))
    torch._dynamo.reset()
    base = torch.compile(model)
    backend = kopt.backend(outdir)
    opt = torch.compile(model, backend=backend)
    with torch.no_grad():
        rb = base(*inputs)
        ro = opt(*inputs)
    rb = rb if isinstance(rb, (tuple, list)) else [rb]
    ro = ro if isinstance(ro, (tuple, list)) else [ro]
    half = any(t.dtype in (torch.float16, torch.bfloat16) for t in rb)
    tol = args.tol if args.tol is not None else 1e-2 if half else 1e-4
    close = all(torch.allclose(a.double(), b.double(), atol=tol, rtol=tol) for a, b in zip(rb, ro))
    tb, to = [], []
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.no_grad():
        for _ in range(3):
            base(*inputs)
            opt(*inputs)
        for _ in range(30):
            for fn, acc in ((base, tb), (opt, to)):
                flush.zero_()
                torch.cuda.synchronize()
                s.record()
                fn(*inputs)
                e.record()
                torch.cuda.synchronize()
                acc.append(s.elapsed_time(e))
    measured = statistics.median(tb) / statistics.median(to)
    claimed = m.get("speedup") or 0
    hits = len(backend.table.hits)
    n += 1
    # a win of the compile variant alone swaps no kernel: the backend's
    # Inductor options are the whole of it
    variant_only = not backend.table.kernels
    good = close and (hits > 0 or variant_only) and abs(measured - claimed) <= args.within * claimed
    bad += not good
    how = f"variant {backend.table.variant.get('name', '?')} alone" if variant_only else f"{hits} kernels swapped"
    print(f"{'' if good else 'not '}ok {n} - {name}: {how}, outputs close {close}, "
          f"measured {measured:.3f}x vs reported {claimed:.3f}x", flush=True)
    rows.append(f"| {name} | {hits} | {close} | {statistics.median(tb)*1e3:.1f} | {statistics.median(to)*1e3:.1f} | {measured:.3f}x | {claimed:.3f}x |")
print(f"1..{n}")
print("| model | kernels swapped | outputs close | torch.compile (us) | kopt.backend (us) | measured | reported |")
print("|---|---|---|---|---|---|---|")
print("\n".join(rows))
sys.exit(1 if bad else 0)
