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
host, other kernels or other configs made the difference; for each, how
many of its compiles the build's graph cache answered (a miss compiles
anew, max-autotune's picks then this process's own), and for each key
looked up that none of the build's profiles did (their graph_keys), the
parts of it that differ (kopt.graphkeys).
A model's source is SPEC_DIR/models/<model>.py, or, for a model named
P/NAME with --sources P=DIR, SPEC_DIR/DIR/NAME.py (the beyond benchmark:
l1=sample/level1,...). A model passes when its outputs are close and the
measured speedup is within F (default 0.10; the issue's check 0.05) of the
report's. Prints TAP and a table: the measured speedup next to the one the
report claims. The models named (MODEL...) are checked in that order,
each with the seconds its two first calls (the compiles) and its whole
check took; a run stopped early (SIGINT, a timeout) still prints the
table of those it checked. A model whose torch.compile call or chosen variant's
call is a fifth or more the host's (report.json: host_bound) is checked
on its speedup in device time (report.json: device_speedup, each call
queued behind a GPU spin, as koptmake's profile measures it) instead:
its speedup per call then moves with the host's time, which differs
from process to process (bench/results/2026-12-02-h200-host/), and its
event figure is printed beside, not checked. The two are compiled each in a frame of its own
(kopt.inductor.own_frame, as koptmake's race compiles its variants): two
backends on one model's frame are two entries of one Dynamo cache, whose
guards each call goes through in turn. With --apart, each is also
compiled and timed alone, Dynamo reset between them.

A model served at several shapes (report.json's "shapes"; kopt(5), shape)
is checked as it is served: one torch.compile(model, backend=kopt.backend(
"kopt-out/<model>"), dynamic=False) called at each declared shape in turn
(the shape's values set in the model file's module, as the worker sets
them, before get_inputs()), beside torch.compile with Inductor's defaults
(dynamic=False, through a backend that counts Inductor's compiles). At
each shape: outputs allclose to eager (the fp64 fallback as above), the
shape's kernels swapped, no warning of a shape outside, one compile, and
the measured speedup within F of the report's row MODEL@SHAPE (host-bound:
its device figure). Then a shape outside the declared ones (--outside
MODEL:NAME=V,..., else the first shape's whole numbers plus one): outputs
allclose to eager, exactly one warning that it is outside, Inductor's
speed (within F of 1.0; in device time for a model host-bound at a
declared shape). Last, every shape once more: no compile, and the
backend compiled as often as Inductor did for the same calls (no
recompilation beyond torch.compile's own).
"""
import argparse
import atexit
import json
import os
import sys
import time

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
import kopt  # noqa: E402
from kopt import deploy as D  # noqa: E402
from kopt import graphkeys as GK  # noqa: E402
from kopt import measure as M  # noqa: E402
from kopt import verify as V  # noqa: E402
from kopt.inductor import own_frame  # noqa: E402
from kopt.loader import apply_shape, load_module, to_device  # noqa: E402
import warnings  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("spec_dir")
ap.add_argument("models", nargs="*")
ap.add_argument("--report", default=os.path.join("kopt-out", "all", "report.json"))
ap.add_argument("--sources", default="")
ap.add_argument("--within", type=float, default=0.10)
ap.add_argument("--tol", type=float, default=None)
ap.add_argument("--apart", action="store_true")
ap.add_argument("--outside", action="append", default=[])
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
    that the events bracket the kernels alone (measure.event_medians, as
    koptmake's profile measures queued_ns_per_call)"""
    ns = M.event_medians([lambda fn=fn: fn(*inputs) for fn in fns], n, flush.zero_, queued=device)
    return [x / 1e6 for x in ns]


def graph_cache():
    """kopt.deploy.graph_counts(), the keys looked up starting anew
    (kopt.graphkeys)"""
    GK.take()
    return D.graph_counts()


def build_keys(outdir):
    """the graph-cache keys the build's profiles of a model looked up
    (every profile*.json under kopt-out/<model>, its shapes' too)"""
    out = []
    for root, _, files in os.walk(outdir):
        for f in sorted(files):
            if f.startswith("profile") and f.endswith(".json"):
                try:
                    with open(os.path.join(root, f)) as fh:
                        out += json.load(fh)["profile"].get("graph_keys") or []
                except (OSError, ValueError, KeyError):
                    pass
    return out


def graph_cache_line(name, before, outdir):
    """the '#' lines: how many of a model's compiles since before the
    build's compile cache answered (a miss compiles anew here, and a
    max-autotune variant then runs the configs this process picks, not the
    ones the report measured: bench/results/2026-12-06g-h100-shapes-static),
    and for each key looked up here that none of the build's profiles
    did, the parts of it that differ from the build's nearest"""
    (h0, m0), (h1, m1) = before, D.graph_counts()
    here, build = GK.take(), build_keys(outdir)
    diff = GK.differing(build, here)
    lines = [f"# {name}: Inductor's graph cache answered {h1 - h0} of its {h1 - h0 + m1 - m0} compiles"
             + (f"; {m1 - m0} compiled anew in this process" if m1 > m0 else "")
             + f"; {len(here) - len(diff)} of the {len(here)} keys looked up are the build's profiles'"]
    lines += [f"#   {d}" for d in diff[:8]]
    return "\n".join(lines)


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


def explain(name, fn, inputs, outdir, variant):
    """the '#' lines of a check that is off: where the difference is, the
    kernels fn runs here against the variant's profile in outdir (a
    shape's folder for a model served at several)"""
    with torch.no_grad():
        seen = kernel_table(fn, inputs)
        host = host_seconds(fn, inputs)
    want = profiled_kernels(outdir, variant)
    print(f"# {name}: the host takes {host*1e6:.1f} us to enqueue a call; kernels deployed against the "
          f"profile of {variant} (us per call):")
    for k in sorted(set(seen) | set(want), key=lambda k: -max(seen.get(k, 0), want.get(k, 0)))[:12]:
        print(f"#   {k[:90]}: deployed {seen.get(k, float('nan')):.1f}, profiled {want.get(k, float('nan')):.1f}")


def close_to_eager(name, model, inputs, ro):
    """outputs allclose to eager's with the strict tolerances (--tol), else
    by the gates' float64 rule"""
    with torch.no_grad():
        re = model(*inputs)
    re = re if isinstance(re, (tuple, list)) else [re]
    ro = ro if isinstance(ro, (tuple, list)) else [ro]
    half = any(t.dtype in (torch.float16, torch.bfloat16) for t in re)
    tol = args.tol if args.tol is not None else 1e-2 if half else 1e-4
    close = all(torch.allclose(a.double(), b.double(), atol=tol, rtol=tol) for a, b in zip(re, ro))
    if not close:
        r64 = V.fp64_outputs(model, inputs)
        ee, eo = [V.rmse([r], [e]) for e, r in zip(re, r64)], [V.rmse([r], [o]) for o, r in zip(ro, r64)]
        close = all(o <= 2 * e + tol / 10 for e, o in zip(ee, eo))
        print(f"# {name}: outputs differ from eager beyond {tol}; against float64: rmse eager {ee}, kopt.backend {eo}")
    return close


def kopt_warnings(caught):
    return [str(w.message) for w in caught if str(w.message).startswith("kopt:")]


def called(fns, inputs):
    """each fn called once on inputs, under no_grad; the kopt warnings said"""
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        outs = [fn(*inputs) for fn in fns]
    return outs, kopt_warnings(caught)


def checked_figure(m, tb, to, db, do):
    """(measured, claimed, what): the speedup per call against the report's;
    where the report says host_bound (torch.compile's call or the chosen
    variant's a fifth or more the host's), the speedup in device time (the
    calls queued behind a spin) against its device_speedup: the per-call
    figure moves with the host's speed from process to process"""
    measured, claimed = tb / to, m.get("speedup") or 0
    if not (m.get("host_bound") and m.get("device_speedup")):
        return measured, claimed, "time per call"
    pct = lambda x: "?" if x is None else f"{100 * x:.0f}%"
    what = (f"device time (the host's share: torch.compile's call {pct(m.get('host_share'))}, the chosen "
            f"variant's {pct(m.get('chosen_host_share'))}; per call {measured:.3f}x vs {claimed:.3f}x)")
    return db / do, m["device_speedup"], what


def shape_row(name, sh, m, backend, base, opt, inputs, model):
    """one declared shape of a model: (ok, line, table row)"""
    before = backend.counts["compiles"]
    (ro, _), said = called([opt, base], inputs)
    close = close_to_eager(f"{name}@{sh['shape']}", model, inputs, ro)
    table = next(t for t in backend.tables if t.shape == sh["shape"])
    hits, variant_only = len(table.hits), not table.kernels
    with torch.no_grad():
        for _ in range(3):
            base(*inputs)
            opt(*inputs)
        tb, to = timed([base, opt], inputs)
        db, do = timed([base, opt], inputs, device=True)
    measured, claimed, checked = checked_figure(m, tb, to, db, do)
    once = backend.counts["compiles"] == before + 1
    outside = any("outside every declared shape" in w for w in said)
    good = close and (hits > 0 or variant_only) and once and not outside and abs(measured - claimed) <= args.within * claimed
    how = f"variant {table.variant.get('name', '?')} alone" if variant_only else f"{hits} kernels swapped"
    line = (f"{name}@{sh['shape']} {sh['set']}: {how}, outputs close to eager {close}, compiled once {once}, "
            f"measured {measured:.3f}x vs reported {claimed:.3f}x, {checked}" + (f"; warned: {said}" if said else ""))
    if not good:   # both sides: the baseline's kernels against the default variant's profile too
        here = os.path.join(spec_dir, "kopt-out", name, sh["shape"])
        explain(f"{name}@{sh['shape']}", opt, inputs, here, table.variant.get("name", ""))
        explain(f"{name}@{sh['shape']} torch.compile", base, inputs, here, "default")
    row = (f"| {name}@{sh['shape']} | {hits} | {close} | {tb*1e3:.1f} | {to*1e3:.1f} | {tb / to:.3f}x | "
           f"{m.get('speedup') or 0:.3f}x | {db*1e3:.1f} | {do*1e3:.1f} | {db/do:.3f}x | "
           f"{m.get('device_speedup') or 0:.3f}x | {'device' if checked != 'time per call' else 'per call'} |")
    return good, line, row


def check_shaped(entry, rowmap):
    """one model served at its declared shapes, then outside them (the
    module docstring); [(ok, line, table row or None)]"""
    name = entry["model"]
    outdir = os.path.join(spec_dir, "kopt-out", name)
    src = source_of(name)
    joined = json.load(open(os.path.join(outdir, "substitutions.json")))
    mod = load_module(src)
    torch.manual_seed(0)
    model = mod.Model(*to_device(list(mod.get_init_inputs()))).cuda().eval()
    torch._dynamo.reset()
    inductor = [0]

    def counting(gm, example_inputs):
        from torch._inductor.compile_fx import compile_fx

        inductor[0] += 1
        return compile_fx(gm, example_inputs)

    base = torch.compile(own_frame(model), backend=counting, dynamic=False)
    backend = kopt.backend(outdir)
    opt = torch.compile(own_frame(model), backend=backend, dynamic=False)

    def inputs_at(values):
        apply_shape(mod, values, src)
        torch.manual_seed(0)
        return list(to_device(mod.get_inputs()))

    out = [shape_row(name, sh, rowmap.get(f"{name}@{sh['shape']}") or {}, backend, base, opt,
                     inputs_at(sh["set"]), model) for sh in joined["shapes"]]
    # a shape outside every declared one
    given = [o.split(":", 1)[1] for o in args.outside if o.split(":", 1)[0] == name]
    if given:
        values = {k: json.loads(v) for k, v in (x.split("=", 1) for x in given[0].split(","))}
    else:
        values = {k: v + 1 for k, v in joined["shapes"][0]["set"].items() if isinstance(v, int)}
    inputs = inputs_at(values)
    before = backend.counts["compiles"]
    (ro, _), said = called([opt, base], inputs)
    close = close_to_eager(f"{name} at {values}", model, inputs, ro)
    with torch.no_grad():
        for _ in range(3):
            base(*inputs)
            opt(*inputs)
        tb, to = timed([base, opt], inputs)
        # a host-bound model's time per call moves with the host's speed
        # (two compiles of the same code 6-7% apart, bench/results/
        # 2026-12-06g): its device time says whether Inductor's code runs
        host = any((rowmap.get(f"{name}@{sh['shape']}") or {}).get("host_bound") for sh in joined["shapes"])
        if host:
            db, do = timed([base, opt], inputs, device=True)
    speed, what = (db / do, "in device time") if host else (tb / to, "per call")
    one = len(said) == 1 and "outside every declared shape" in said[0]
    good = close and one and backend.counts["compiles"] == before + 1 and abs(speed - 1) <= args.within
    out.append((good, f"{name} at {values} (outside): outputs close to eager {close}, warnings {said}, "
                      f"Inductor's speed {speed:.3f}x {what} ({tb / to:.3f}x per call)", None))
    # every shape again: nothing compiles, and no more than Inductor did
    before, ind = backend.counts["compiles"], inductor[0]
    for sh in joined["shapes"] + [{"set": values}]:
        called([opt, base], inputs_at(sh["set"]))
    good = backend.counts["compiles"] == before and inductor[0] == ind and backend.counts["compiles"] == inductor[0]
    out.append((good, f"{name}: {backend.counts['compiles']} compiles ({backend.counts['outside']} outside) against "
                      f"Inductor's {inductor[0]} for the same calls, none on the second round", None))
    torch._dynamo.reset()
    return out


torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
GK.install()   # the keys each model's compiles look up, against its build's
flush = torch.empty(64 << 20, dtype=torch.int32, device="cuda")
n = bad = 0
rows = []
ended = False


def table():
    print("| model | kernels swapped | outputs close | torch.compile (us) | kopt.backend (us) | measured | reported "
          "| torch.compile, device (us) | kopt.backend, device (us) | device | reported, device | checked |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows), flush=True)


def stopped():
    """stopped before the end (SIGINT, a timeout): the rows checked so far"""
    if not ended:
        print(f"# stopped after {n} checks; the table of those:")
        table()


atexit.register(stopped)
# the models named on the command line go in that order (the cheap ones
# first, where a device call's time is short), the rest in the report's
order = {name: i for i, name in enumerate(args.models)}
for m in sorted(report["models"], key=lambda m: order.get(m["model"], len(order))):
    name = m["model"]
    if m.get("of"):
        continue   # a shape of a model: checked with its model's shapes below
    if m.get("verdict") != "optimized" or (only and name not in only):
        continue
    t_model, cached = time.perf_counter(), graph_cache()

    outdir = os.path.join(spec_dir, "kopt-out", name)
    src = source_of(name)
    if not os.path.isfile(src):
        # a report of another sample than the sources given (a folder
        # reused for another part): a failed check that names the file,
        # and the others still checked
        n += 1
        bad += 1
        print(f"not ok {n} - {name}: its model's source {src} is not there (--sources, or a report of another sample)",
              flush=True)
        continue
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
    t_compiled = time.perf_counter()
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
    measured, claimed, checked = checked_figure(m, tb, to, db, do)
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
    print(f"# {name}: the two first calls (their compiles) {t_compiled - t_model:.1f} s, "
          f"the check {time.perf_counter() - t_model:.1f} s", flush=True)
    print(graph_cache_line(name, cached, outdir), flush=True)
    rows.append(f"| {name} | {hits} | {close} | {tb*1e3:.1f} | {to*1e3:.1f} | "
                f"{tb / to:.3f}x | {m.get('speedup') or 0:.3f}x | {db*1e3:.1f} | {do*1e3:.1f} | {db/do:.3f}x | "
                f"{m.get('device_speedup') or 0:.3f}x | {'device' if checked != 'time per call' else 'per call'} |")
    if not good:
        explain(name, opt, inputs, outdir, backend.table.variant.get("name", ""))
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
rowmap = {m["model"]: m for m in report["models"]}
for entry in report.get("shapes") or []:
    if only and entry["model"] not in only:
        continue
    cached = graph_cache()
    for good, line, row in check_shaped(entry, rowmap):
        n += 1
        bad += not good
        print(f"{'' if good else 'not '}ok {n} - {line}", flush=True)
        if row:
            rows.append(row)
    print(graph_cache_line(entry["model"], cached, os.path.join(spec_dir, "kopt-out", entry["model"])), flush=True)
print(f"1..{n}")
table()
ended = True
sys.exit(1 if bad else 0)
