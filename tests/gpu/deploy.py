#!/usr/bin/env python3
"""tests/gpu/deploy.py: the one-line deployment in a plain Python process.

    deploy.py SPEC_DIR [MODEL...]

For each model of SPEC_DIR/kopt-out/all/report.json that koptmake optimized:
torch.compile(model) (Inductor's defaults, the report's baseline) against
torch.compile(model, backend=kopt.backend("kopt-out/<model>")), timed side by
side (interleaved, L2 flushed, median of 30 CUDA-event timings), outputs
compared with the strict tolerances. Prints TAP and a table: the measured
speedup next to the one the report claims.
"""
import json
import os
import statistics
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
import kopt  # noqa: E402
from kopt.loader import load_module, to_device  # noqa: E402

spec_dir = sys.argv[1]
only = set(sys.argv[2:])
report = json.load(open(os.path.join(spec_dir, "kopt-out", "all", "report.json")))
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
    src = os.path.join(spec_dir, "models", name + ".py")
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
    tol = 1e-2 if half else 1e-4
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
    good = close and (hits > 0 or variant_only) and abs(measured - claimed) <= 0.10 * claimed
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
