#!/usr/bin/env python3
"""tests/gpu/deploy.py: the one-line deployment in a plain Python process.

    deploy.py SPEC_DIR [--report REL] [--sources P=DIR,...] [--within F] [--tol T] [MODEL...]

For each model of SPEC_DIR/kopt-out/all/report.json (--report: another
report, relative to SPEC_DIR) that koptmake optimized:
torch.compile(model) (Inductor's defaults, the report's baseline) against
torch.compile(model, backend=kopt.backend("kopt-out/<model>")), timed side by
side (interleaved, L2 flushed, median of 30 CUDA-event timings, each call
from an idle GPU as koptmake's race times it: the host's time before the
first kernel counts), outputs compared with the strict tolerances (--tol:
the spec's, KernelBench's 1e-2; where they differ, both against the
model's float64 outputs by the gates' rule, gates/fp64.c: rmse(opt) <=
2 rmse(torch.compile) + tol/10, for a model whose values torch.compile
itself does not reproduce within the tolerance). Beside it, each call's device time (queued
behind a GPU spin, so that the host's launches are hidden), and for a model
whose speedup is off, its kernels as the profiler sees them against the
variant's profile (kopt-out/<model>/profile-<variant>.json): whether the
host, other kernels or other configs made the difference.
A model's source is SPEC_DIR/models/<model>.py, or, for a model named
P/NAME with --sources P=DIR, SPEC_DIR/DIR/NAME.py (the beyond benchmark:
l1=sample/level1,...). A model passes when its outputs are close and the
measured speedup is within F (default 0.10; the issue's check 0.05) of the
report's. Prints TAP and a table: the measured speedup next to the one the
report claims. A model whose chosen variant's call is a fifth or more
the host's (report.json: host_bound) is checked on
its speedup in device time (report.json: device_speedup) instead: its
time per call is then mostly the host's, which differs from process to
process (bench/results/2026-12-02-h200-host/), and its event figure is
printed beside, not checked. The two are compiled each in a frame of its own
(kopt.inductor.own_frame, as koptmake's race compiles its variants): two
backends on one model's frame are two entries of one Dynamo cache, whose
guards each call goes through in turn. With --apart, each is also
compiled and timed alone, Dynamo reset between them.
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
from kopt import measure as M  # noqa: E402
from kopt import verify as V  # noqa: E402
from kopt.inductor import own_frame  # noqa: E402
from kopt.loader import load_module, to_device  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("spec_dir")
ap.add_argument("models", nargs="*")
ap.add_argument("--report", default=os.path.join("kopt-out", "all", "report.json"))
ap.add_argument("--sources", default="")
ap.add_argument("--within", type=float, default=0.10)
ap.add_argument("--tol", type=float, default=None)
ap.add_argument("--apart", action="store_true")
args = ap.parse_intermixed_args()
spec_dir = args.spec_dir
only = set(args.models)
sources = dict(x.split("=", 1) for x in args.sources.split(",") if "=" in x)
report = json.load(open(os.path.join(spec_dir, args.report)))


def source_of(name):
    prefix, _, rest = name.partition("/")
    if rest and prefix in sources:
        return os.path.join(spec_dir, sources[prefix], rest + ".py")
    return os.path.join(spec_dir, "models", name + ".py")

def host_seconds(fn, inputs, n=5):
    """the host's time to enqueue a call (no synchronize inside)"""
    return M.enqueue_seconds(lambda: fn(*inputs), n)


def timed(fns, inputs, n=30, device=False):
    """per fn, the median of its calls' CUDA-event times (ms), interleaved,
    the L2 flushed before each: each call from an idle GPU (the host's time
    before its first kernel counts, as in koptmake's race), or with device,
    queued behind a GPU spin longer than the host takes to enqueue it, so
    that the events bracket the kernels alone"""
    spins = [int(max(4 * host_seconds(fn, inputs), 2e-4) * 2.0e9) if device else 0  # cycles, at about 2 GHz
             for fn in fns]
    out = [[] for _ in fns]
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(n):
        for i, fn in enumerate(fns):
            flush.zero_()
            torch.cuda.synchronize()
            if spins[i]:
                torch.cuda._sleep(spins[i])
            s.record()
            fn(*inputs)
            e.record()
            torch.cuda.synchronize()
            out[i].append(s.elapsed_time(e))
    return [statistics.median(x) for x in out]


def kernel_table(fn, inputs, n=10):
    """the kernels of a call as the profiler sees them: name -> us per call"""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            fn(*inputs)
        torch.cuda.synchronize()
    per = {}
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA:
            per[ev.name] = per.get(ev.name, 0.0) + ev.device_time_total / n
    return per


def profiled_kernels(outdir, variant):
    """the variant's kernels in koptmake's profile: name -> us per call"""
    for name in (f"profile-{variant}.json", "profile.json"):
        path = os.path.join(outdir, name)
        if not os.path.exists(path):
            continue
        prof = json.load(open(path))
        if prof.get("variant") not in (None, variant):
            continue
        rows = (prof.get("profile") or {}).get("rows") or []
        return {r["name"]: r.get("ns_per_call", 0) / 1e3 for r in rows if isinstance(r, dict) and "name" in r}
    return {}


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
    # each in a frame of its own (kopt.inductor.own_frame), as the race
    # compiles each variant: two backends on one model's frame are two
    # entries of one Dynamo cache, whose guards each call goes through
    base = torch.compile(own_frame(model))
    backend = kopt.backend(outdir)
    opt = torch.compile(own_frame(model), backend=backend)
    with torch.no_grad():
        rb = base(*inputs)
        ro = opt(*inputs)
    rb = rb if isinstance(rb, (tuple, list)) else [rb]
    ro = ro if isinstance(ro, (tuple, list)) else [ro]
    half = any(t.dtype in (torch.float16, torch.bfloat16) for t in rb)
    tol = args.tol if args.tol is not None else 1e-2 if half else 1e-4
    close = all(torch.allclose(a.double(), b.double(), atol=tol, rtol=tol) for a, b in zip(rb, ro))
    if not close:  # the gates' float64 fallback (gates/fp64.c, fp32's m = 2; the gates' rmse)
        r64 = V.fp64_outputs(model, inputs)
        eb, eo = [V.rmse([r], [b]) for b, r in zip(rb, r64)], [V.rmse([r], [o]) for o, r in zip(ro, r64)]
        close = all(o <= 2 * b + tol / 10 for b, o in zip(eb, eo))
        print(f"# {name}: outputs differ beyond {tol}; against float64: rmse torch.compile {eb}, kopt.backend {eo}")
        del r64
    with torch.no_grad():
        for _ in range(3):
            base(*inputs)
            opt(*inputs)
        tb, to = timed([base, opt], inputs)
        db, do = timed([base, opt], inputs, device=True)
    measured = tb / to
    claimed = m.get("speedup") or 0
    checked = "time per call"
    if m.get("host_bound") and m.get("device_speedup"):
        # host-bound: the device figure is the one that reproduces
        checked = (f"device time ({100 * m['chosen_host_share']:.0f}% of a call the host's; "
                   f"per call {measured:.3f}x vs {claimed:.3f}x)")
        measured, claimed = db / do, m["device_speedup"]
    hits = len(backend.table.hits)
    n += 1
    # a win of the compile variant alone swaps no kernel: the backend's
    # Inductor options are the whole of it
    variant_only = not backend.table.kernels
    good = close and (hits > 0 or variant_only) and abs(measured - claimed) <= args.within * claimed
    bad += not good
    how = f"variant {backend.table.variant.get('name', '?')} alone" if variant_only else f"{hits} kernels swapped"
    print(f"{'' if good else 'not '}ok {n} - {name}: {how}, outputs close {close}, "
          f"measured {measured:.3f}x vs reported {claimed:.3f}x, {checked}", flush=True)
    rows.append(f"| {name} | {hits} | {close} | {tb*1e3:.1f} | {to*1e3:.1f} | "
                f"{tb / to:.3f}x | {m.get('speedup') or 0:.3f}x | {db*1e3:.1f} | {do*1e3:.1f} | {db/do:.3f}x | "
                f"{m.get('device_speedup') or 0:.3f}x | {'device' if checked != 'time per call' else 'per call'} |")
    if not good:
        # where the difference is: the deployed kernels against the profile's
        variant = backend.table.variant.get("name", "")
        with torch.no_grad():
            seen = kernel_table(opt, inputs)
            host = host_seconds(opt, inputs)
        want = profiled_kernels(outdir, variant)
        print(f"# {name}: the host takes {host*1e6:.1f} us to enqueue a call; kernels deployed against the "
              f"profile of {variant} (us per call):")
        for k in sorted(set(seen) | set(want), key=lambda k: -max(seen.get(k, 0), want.get(k, 0)))[:12]:
            print(f"#   {k[:90]}: deployed {seen.get(k, float('nan')):.1f}, profiled {want.get(k, float('nan')):.1f}")
    if args.apart:  # last: it resets Dynamo, and base and opt compile again
        alone = []
        for make in (lambda: torch.compile(model), lambda: torch.compile(model, backend=kopt.backend(outdir))):
            torch._dynamo.reset()
            fn = make()
            with torch.no_grad():
                for _ in range(3):
                    fn(*inputs)
                alone.append((timed([fn], inputs)[0], host_seconds(fn, inputs)))
        print(f"# {name}: apart, torch.compile {alone[0][0]*1e3:.1f} us (host {alone[0][1]*1e6:.1f}), kopt.backend "
              f"{alone[1][0]*1e3:.1f} us (host {alone[1][1]*1e6:.1f}): {alone[0][0] / alone[1][0]:.3f}x")
print(f"1..{n}")
print("| model | kernels swapped | outputs close | torch.compile (us) | kopt.backend (us) | measured | reported "
      "| torch.compile, device (us) | kopt.backend, device (us) | device | reported, device | checked |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
sys.exit(1 if bad else 0)
