"""The torch side of kopt-worker: one function per protocol op.

kopt-worker (C) reads each request line, checks it is JSON, and calls
``handle(line)``; the reply string goes back to the engine. The protocol is
in runtime/PROTOCOL.md. Nothing here writes to stdout (kopt-worker points
fd 1 at stderr anyway).
"""

from __future__ import annotations

import gc
import json
import os
import platform
import sys
import time
import traceback
from collections import OrderedDict

from .errors import error_line
from .stacks import stack_dumps


def _compile_caches() -> None:
    """Inductor's FX-graph and autotuning caches and Triton's kernel cache
    under the spec's cache folder (KOPT_COMPILE_CACHE, set by koptmake), so a
    candidate, a re-capture and a stitch reuse compiled code across workers
    and builds. Set before torch is imported; a user's own setting wins."""
    base = os.environ.get("KOPT_COMPILE_CACHE")
    if base:
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(base, "inductor"))
        os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(base, "triton"))


_compile_caches()
stack_dumps(os.environ.get("KOPT_WORKER_STACKS"))

import torch  # noqa: E402

from . import __version__ as kopt_version
from . import gpulock as G
from . import kernels as K
from . import loader as L
from . import measure as M
from . import precision as P
from . import state as ST
from . import records as R
from . import rewrites as RW
from . import screen as SC
from . import helion as H
from . import vendor as VD
from . import verify as V
from .facts import graph_facts
from .inductor import Compiled, compile_hooks, compile_problem, moved_bytes, record_kernel_args
from .loader import load_problem

PROTOCOL = 1

FATAL_MARKS = (
    "illegal memory access", "illegal instruction", "device-side assert", "unspecified launch failure",
    "misaligned address", "an illegal address", "cuda error: launch failure", "context is destroyed",
)


class State:
    """What one worker keeps between requests: the compiled problems it
    served last (KOPT_COMPILED_MAX of them, least recently used out), the
    L2 flusher, the copy bandwidth and the FP32 peak. The engine sends every GPU step of a
    model and variant to the worker that served it last, so a verify finds
    its model compiled and its inputs and references on the GPU (state.py)."""

    compiled: "OrderedDict[str, Compiled]" = OrderedDict()
    flusher: M.Flusher | None = None
    copy_gbps: float | None = None
    fp32_gflops: float | None = None
    compiles = 0


S = State()
COMPILED_MAX = max(1, int(os.environ.get("KOPT_COMPILED_MAX", "4")))


def driver_version() -> str:
    try:
        with open("/proc/driver/nvidia/version") as f:
            for word in f.readline().split():
                if word[:1].isdigit() and "." in word:
                    return word
    except OSError:
        pass
    return str(torch._C._cuda_getDriverVersion())


# the files whose code a variant with koptmake's own options (kopt.NAME)
# compiles into its graph or runs from it: the graph rewrites and the
# kernels they call (a change to them changes what such a variant runs,
# where torch's and Triton's versions stay)
GRAPH_CODE = RW.GRAPH_CODE


def graph_code() -> str:
    """A digest of GRAPH_CODE's files: the env's graph_code, which keys
    the captures of variants with kopt.NAME options (rules/capture.c)"""
    import hashlib

    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    for name in GRAPH_CODE:
        with open(os.path.join(here, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()[:16]


def env() -> dict:
    import triton

    p = torch.cuda.get_device_properties(0)
    return {
        "gpu": p.name, "cc": f"{p.major}.{p.minor}", "driver": driver_version(),
        "cuda": torch.version.cuda, "torch": torch.__version__, "triton": triton.__version__,
        "python": platform.python_version(), "sms": p.multi_processor_count,
        "memory_gib": round(p.total_memory / 2**30, 1), "kopt": kopt_version, "graph_code": graph_code(),
    }


def witness() -> list[str]:
    """Files whose bytes stand for the environment: while none of them
    changes, the env this worker reports stays what it is, and koptmake can
    key a build on the remembered env without starting a worker (a null
    build then costs no GPU and no Python). The GPU list, the driver, torch
    (its version.py holds torch and CUDA versions), triton, the interpreter
    and this package (its version, and the files of its graph code)."""
    import glob

    import triton

    out = ["/proc/driver/nvidia/version"]
    out += sorted(glob.glob("/proc/driver/nvidia/gpus/*/information"))
    out.append(os.path.join(os.path.dirname(torch.__file__), "version.py"))
    out.append(os.path.abspath(triton.__file__))
    out.append(os.path.realpath(sys.executable) if sys.executable else "")
    here = os.path.dirname(os.path.abspath(__file__))
    out += [os.path.join(here, name) for name in ("__init__.py",) + GRAPH_CODE]
    return [p for p in out if p]


def hello() -> str:
    return json.dumps({"hello": "kopt-worker", "protocol": PROTOCOL, "env": env(), "witness": witness()})


def forget(key: str | None = None) -> None:
    """Drops one compiled problem (or all) and its baseline outputs."""
    keys = list(S.compiled) if key is None else [key]
    for k in keys:
        S.compiled.pop(k, None)
        ST.store().drop_where(lambda sk, k=k: isinstance(sk, tuple) and len(sk) > 1 and sk[0] == "base" and sk[1] == k)
    if key is None:
        ST.store().clear()
        torch._dynamo.reset()
    gc.collect()
    torch.cuda.empty_cache()


def forget_others(req: dict) -> None:
    """Drops every compiled problem but the request's (their models'
    weights are on the GPU): the request ran out of memory."""
    mine = compiled_key(*request_parts(req)) if isinstance(req.get("model"), dict) else None
    for k in [k for k in S.compiled if k != mine]:
        forget(k)


def compiled_key(model: dict, variant: dict, seed: int) -> str:
    parts = [model["path"], model["kind"], variant, seed]
    if model.get("shape"):   # a shape the model is served at (kopt(5), shape)
        parts.append(model["shape"])
    return json.dumps(parts, sort_keys=True)


def request_parts(req: dict) -> tuple[dict, dict, int]:
    """(model, variant, seed) of a request, as its compiled problem is kept"""
    return req["model"], req.get("variant") or {"name": "default"}, int(req.get("seed", 0))


def gpu_lock() -> None:
    """Inductor's timings take turns with other workers' on this GPU, and
    one worker of the cache tunes an operator that others' variants share
    (gpulock.py): several workers may compile on one GPU at once."""
    p = torch.cuda.get_device_properties(0)
    G.install(os.environ.get("KOPT_COMPILE_CACHE"), str(getattr(p, "uuid", None) or p.name), str(p.name))


def get_compiled(req: dict) -> Compiled:
    model, variant, seed = request_parts(req)
    key = compiled_key(model, variant, seed)
    c = S.compiled.get(key)
    if c is not None and c.problem.digest == L.problem_digest(model):
        S.compiled.move_to_end(key)
        return c
    forget(key)
    while len(S.compiled) >= COMPILED_MAX:
        forget(next(iter(S.compiled)))
    t0 = time.perf_counter()
    gpu_lock()
    compile_hooks()
    setup_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    problem = load_problem(model, seed)
    load_s = time.perf_counter() - t0
    # each load executes the file anew (new code objects), so Dynamo's
    # caches of the problems kept here stay apart without a reset
    waited = G.waited()
    t0 = time.perf_counter()
    c = compile_problem(problem, variant, reset=False)
    # around the compile's own spans: the lock's and Inductor's imports
    # (seconds in a fresh worker), torch.compile's wrapper, the output
    # code read after it
    c.around_s = round(setup_s + max(0.0, time.perf_counter() - t0 - c.compile_s), 3)
    # (its autotuning's turns behind other workers' timings: part of its phases)
    c.phases["gpu_lock_wait_s"] = round(G.waited() - waited, 3)
    c.load_s = round(load_s, 3)
    c.key = key
    S.compiles += 1
    S.compiled[key] = c
    return c


def footprint(c: Compiled) -> int:
    """Bytes of one set of the model's inputs and outputs (the outputs as
    the baseline's were, else taken as large as the inputs)."""
    p = c.problem
    ins = ST.nbytes(p.master(0)[0])
    return ins + p.extra.get("out_bytes", ins)


def room_for(c: Compiled, sets: int = 6) -> None:
    """Makes room on the GPU for a request on c: about `sets` copies of its
    inputs and outputs (a copy per call, the candidate's outputs, the
    poisoned blocks, float64 comparisons), pushing stored entries out."""
    ST.store().trim(sets * footprint(c))


def flusher() -> M.Flusher:
    if S.flusher is None:
        S.flusher = M.Flusher()
    return S.flusher


def inventory(c: Compiled, names_seen: list[str], args: dict) -> list[dict]:
    if c.problem.kind == "helion":
        return H.inventory(c, names_seen, args)
    decls = {d.name: d for d in c.decls}
    objs = c.kernel_objects()
    out, seen = [], set()
    for d in c.decls:
        seen.add(d.name)
        out.append({
            "name": d.name, "kind": "triton", "source_hash": d.hash, "source": d.source,
            "heuristic": d.heuristic, "config": K.current_config(objs.get(d.name)),
            "args": args.get(d.name, []),
        })
    for n in names_seen:
        if n in seen:
            continue
        seen.add(n)
        kind = K.classify(n, set(decls))
        out.append({"name": n, "kind": kind, "source_hash": None, "source": None,
                    "heuristic": None, "config": None, "args": []})
    return out


def kernel_args(c: Compiled, inputs) -> dict:
    if c.problem.kind == "helion":
        return H.record_args(c, inputs)
    return record_kernel_args(c, inputs)


def op_ping(req):
    return {}


def op_bandwidth(req):
    """The device's roofs: its copy bandwidth and FP32 peak, each measured
    once per GPU and cached (measure.py). A peak that cannot be measured is
    null: the bounds then rest on the copy bandwidth alone."""
    if S.copy_gbps is None:
        S.copy_gbps = M.copy_bandwidth_gbps()
    if S.fp32_gflops is None:
        try:
            S.fp32_gflops = M.peak_fp32_gflops()
        except torch.cuda.OutOfMemoryError:
            raise
        except Exception:
            traceback.print_exc(file=sys.stderr)
    return {"copy_gbps": S.copy_gbps, "fp32_gflops": S.fp32_gflops}


def sm_limits() -> dict:
    return K.sm_limits(torch.cuda.get_device_properties(0))


def warm(c: Compiled, inputs, n: int = 3):
    for _ in range(n):
        c.run(inputs)
    torch.cuda.synchronize()
    M.drain()


def process_age_s() -> float | None:
    """Seconds since this process started (/proc/self/stat's start time),
    or None where that cannot be read"""
    try:
        with open("/proc/self/stat") as f:
            start = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            up = float(f.read().split()[0])
        return round(max(0.0, up - start / os.sysconf("SC_CLK_TCK")), 3)
    except (OSError, ValueError, IndexError):
        return None


def op_capture(req):
    # where a capture's seconds went besides the compile: the worker's age
    # when the request came (a worker started for this step spent it on
    # its start), the model loaded, what ran around the compile's spans,
    # and after the compile its warm-up runs, its kernels' arguments
    # recorded, and its kernel list taken
    parts = {"worker_age_s": process_age_s()}
    t0 = time.perf_counter()
    P.set_policy(P.CAPTURE)
    n0 = S.compiles
    c = get_compiled(req)
    compiled = S.compiles > n0
    parts["load_s"] = c.load_s if compiled else 0.0
    parts["compile_s"] = round(c.compile_s, 3) if compiled else 0.0
    parts["around_s"] = c.around_s if compiled else 0.0
    t1 = time.perf_counter()
    inputs = c.problem.inputs(0)
    warm(c, inputs)
    t2 = time.perf_counter()
    args = kernel_args(c, inputs)
    t3 = time.perf_counter()
    M.need_cupti()
    M.drain()
    c.run(inputs)
    torch.cuda.synchronize()
    names = []
    for r in M.cupti.take():
        if r[0] not in names:
            names.append(r[0])
    kernels = inventory(c, names, args)
    t4 = time.perf_counter()
    parts.update(warm_s=round(t2 - t1, 3), args_s=round(t3 - t2, 3), kernels_s=round(t4 - t3, 3),
                 after_s=round(t4 - t1, 3), total_s=round(t4 - t0, 3))
    return {
        "output_code": c.output_code, "compile_s": round(c.compile_s, 3),
        "compile_phases": {k: v for k, v in c.phases.items() if k != "wall_s"},
        "capture_parts": parts,
        "inputs": [{"shape": list(x.shape), "dtype": str(x.dtype).removeprefix("torch.")}
                   for x in inputs if isinstance(x, torch.Tensor)],
        "kernels": kernels,
    }


def op_profile(req):
    P.set_policy(P.CAPTURE)
    t0 = time.perf_counter()
    phases = {}
    c = get_compiled(req)
    room_for(c)
    inputs = c.problem.inputs(0)
    warm(c, inputs, int(req.get("warmup", 3)))
    args = kernel_args(c, inputs)
    n = int(req.get("calls", 20))
    calls = M.timed_calls([lambda: c.run(inputs)], n, flusher())[0]
    # the device time per call, each call queued behind a spin that hides
    # the host's launches: what the report's device speedups divide and a
    # deployment reproduces, where a call's span from an idle GPU carries
    # the host's gaps between kernels (rules/report_device.c)
    queued = M.event_medians([lambda: c.run(inputs)], n, flusher(), queued=True)[0]
    raw = [{"t0": x.t0, "t1": x.t1, "event_ns": x.event_ns, "records": x.records} for x in calls] if req.get("raw") else None
    roofs = op_bandwidth(req)
    peak = roofs["copy_gbps"]
    ops = K.aten_ops(c.output_code)
    objs, limits = c.kernel_objects(), sm_limits()
    order, per = R.per_kernel([x.records for x in calls])
    inv = {k["name"]: k for k in inventory(c, order, args)}
    kernel_total = sum(e["ns"] for e in per.values()) / n
    rows = []
    for name in order:
        e, k = per[name], inv[name]
        ns = e["ns"] / n
        launches = e["launches"] / n
        nbytes = moved_bytes(k["args"]) if k["kind"] == "triton" and k["args"] else None
        gbps = nbytes * launches / ns if nbytes and ns > 0 else None   # bytes per ns = GB/s
        rows.append({
            "name": name, "kind": k["kind"], "source_hash": k["source_hash"],
            "launches_per_call": launches, "ns_per_call": ns,
            "share": ns / kernel_total if kernel_total else 0.0,
            "bytes": nbytes, "achieved_gbps": gbps,
            "frac_peak": gbps / peak if gbps else None,
            **({"aten": ops[name]} if ops.get(name) else {}),
            # registers, spills, warps, shared memory and occupancy of the
            # compiled kernel, read from its metadata (no compile)
            **(K.compile_meta(objs.get(name), limits) if k["kind"] == "triton" else {}),
        })
    rows.sort(key=lambda r: -r["ns_per_call"])
    phases["measure_s"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    counted = None
    counting = counters_wanted(req, c, rows)
    if isinstance(counting, str):
        counted = {"error": counting}
    elif counting:
        # the bytes each kernel really moved (advice: a profile stands without them)
        try:
            launches = [r[0] for r in sorted(calls[-1].records, key=lambda r: r[1])]
            counted = dram_rows(rows, *M.dram_bytes(lambda: c.run(inputs), flusher(), launches))
        except Exception as exc:
            if is_fatal(exc):
                raise
            traceback.print_exc(file=sys.stderr)
            counted = {"error": (str(exc).splitlines() or [repr(exc)])[0][:300]}
        phases["counters_s"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    try:
        eager = eager_vs_compiled(c, inputs, flusher())
    except Exception as exc:  # advice too
        traceback.print_exc(file=sys.stderr)
        eager = {"error": str(exc).splitlines()[0][:300] if str(exc) else repr(exc)}
    phases["eager_s"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    check = None
    if req.get("gates"):
        # the compiled baseline against eager (and float64 where they differ):
        # a speedup is claimed only for a baseline that computes the model
        check = V.baseline_check(c, req["gates"])
        phases["check_s"] = round(time.perf_counter() - t0, 3)
        t0 = time.perf_counter()
    facts = None
    if c.problem.kind == "torch":
        try:
            facts = graph_facts(c.problem, inputs)
        except Exception:  # advice: the search then tries fewer dimensions
            traceback.print_exc(file=sys.stderr)
    try:
        vendor = VD.probe(c, inputs, flusher())
    except Exception as exc:  # the vendor view is advice: a profile stands without it
        traceback.print_exc(file=sys.stderr)
        vendor = {"calls": [], "error": str(exc).splitlines()[0][:300] if str(exc) else repr(exc)}
    phases["vendor_s"] = round(time.perf_counter() - t0, 3)
    helion = None
    if c.problem.kind == "helion":
        # the baselines a Helion user would pick: the kernels' own configs,
        # Helion's quick autotune and, asked for, its full effort
        t0 = time.perf_counter()
        try:
            helion = H.baselines(c, req, flusher())
        except Exception as exc:
            if is_fatal(exc) or isinstance(exc, torch.cuda.OutOfMemoryError):
                raise
            traceback.print_exc(file=sys.stderr)
            helion = {"kernels": [], "error": (str(exc).splitlines() or [repr(exc)])[0][:300]}
        phases["helion_s"] = round(time.perf_counter() - t0, 3)
    return {
        "calls": n,
        "model_ns_per_call": M.median([x.event_ns for x in calls]),
        "device_ns_per_call": M.median([x.span_ns for x in calls]),
        "queued_ns_per_call": queued,
        "kernel_ns_per_call": kernel_total,
        "peak_copy_gbps": peak,
        "peak_fp32_gflops": roofs["fp32_gflops"],
        "kernels": rows,
        "vendor": vendor,
        **({"eager": eager} if eager else {}),
        **({"check": check} if check else {}),
        **({"facts": facts} if facts else {}),
        **({"counters": counted} if counted else {}),
        "phases": phases,
        **({"graph_keys": c.graph_keys} if c.graph_keys else {}),
        **({"helion": helion} if helion is not None else {}),
        **({"raw_calls": raw} if raw else {}),
    }


def counters_wanted(req: dict, c: Compiled, rows: list[dict]) -> bool | str:
    """Whether a profile counts its kernels' DRAM bytes (one more call
    under CUPTI's range profiler), or why not where the report should say.
    KOPT_COUNTERS=0: none, whatever the request says (a GPU whose counters
    are not the user's to read); nor for a Helion kernel, nor where no
    Triton kernel runs (a vendor kernel's bound is its own time: its bytes
    change nothing). Not over CUDA graphs: the range profiler around a
    graph's replay ended in an illegal instruction on an H100 (the GPT-2
    block's CUDA-graph variant, bench/results/2026-12-06g), which loses the
    worker's CUDA context; the same kernels without graphs are counted in
    their own variant's profile."""
    if not req.get("counters", True) or os.environ.get("KOPT_COUNTERS", "1") == "0" or c.problem.kind == "helion" \
            or not any(r["kind"] == "triton" for r in rows):
        return False
    if c.graphs:
        # (rules/profile.c prints it as "DRAM bytes: not counted (REASON)")
        return "over CUDA graphs' replays, CUPTI's range profiler loses the CUDA context"
    return True


def dram_rows(rows: list[dict], moved: dict, info: dict) -> dict:
    """Each row that the counters saw (moved: measure.dram_bytes) gets its
    DRAM bytes per launch (dram_bytes, in the terms of its argument bytes)
    and their rate (dram_gbps); returns what the collection says: its
    metrics, its account (info), and the kernels seen that no row has."""
    moved = dict(moved)
    matched = 0
    for r in rows:
        m = moved.pop(r["name"], None)
        if not m or not m[0]:
            continue
        matched += 1
        r["dram_bytes"] = m[1] / m[0]
        r["dram_gbps"] = m[1] / r["ns_per_call"] if r["ns_per_call"] > 0 else None
    return {"metrics": list(M.DRAM_METRICS), **info, "rows": matched, "unmatched": sorted(moved)[:20]}


def eager_vs_compiled(c: Compiled, inputs, flush, n: int = 10) -> dict | None:
    """The model run eagerly beside its compiled code, interleaved, L2
    flushed (CUDA events): where eager wins, Inductor's kernels lose to
    ATen's, and an ATen-fallback variant is worth declaring."""
    if c.problem.kind != "torch":
        return None
    model = c.problem.model

    def eager():
        with torch.no_grad():
            model(*inputs)
    eager()
    torch.cuda.synchronize()
    M.drain()
    comp, eag = M.timed_calls([lambda: c.run(inputs), eager], n, flush)
    # event times carry each side's host overhead before its first kernel;
    # device spans (first kernel's start to last kernel's end) are what an
    # ATen fallback inside the compiled code changes
    return {"calls": n, "compiled_ns": M.median([x.event_ns for x in comp]),
            "eager_ns": M.median([x.event_ns for x in eag]),
            "compiled_device_ns": M.median([x.span_ns for x in comp]),
            "eager_device_ns": M.median([x.span_ns for x in eag])}


def op_verify(req):
    P.set_policy(req["gates"]["precision"])
    t0, n0 = time.perf_counter(), S.compiles
    c = get_compiled(req)
    model_s = time.perf_counter() - t0
    room_for(c)
    out = V.verify(c, req, flusher())
    # where the request's time went: the model (compiled here, or kept from
    # an earlier request), then the candidate's build and the gates (verify)
    out.setdefault("phases", {}).update(model_s=round(model_s, 3), compiled=S.compiles > n0)
    return out


def op_race(req):
    """The compiled baselines of a model's variants, timed side by side
    (interleaved, L2 flushed): the ratios between variants come from one
    run, not from separate steps whose absolute times drift."""
    P.set_policy(req["gates"]["precision"])
    model, seed = req["model"], int(req.get("seed", 0))
    n = int(req.get("calls", 20))
    try:
        comps = [get_compiled({"model": model, "variant": v, "seed": seed}) for v in req["variants"]]
        inputs = comps[0].problem.inputs(0)
        for c in comps:
            warm(c, inputs)
        timed = M.timed_calls([lambda c=c: c.run(inputs) for c in comps], n, flusher())
        # rounds: each variant's calls in order, round i of every variant
        # timed back to back, so that the choice can pair them (the
        # performance gate's noise rule, rules/space_pick.c)
        return {"calls": n, "ns": [M.median([x.event_ns for x in calls]) for calls in timed],
                "rounds": [[round(x.event_ns, 1) for x in calls] for calls in timed]}
    except Exception as exc:
        if is_fatal(exc):
            raise
        # the race refines the choice; without it the stitches' own times decide
        traceback.print_exc(file=sys.stderr)
        return {"calls": 0, "ns": None, "error": (str(exc).splitlines() or [repr(exc)])[0][:300]}


def op_screen(req):
    """Many launch configs of one kernel, timed alone (screen.py). A screen
    that cannot run (the kernel not found, no config to start from, not
    launched in a call), short of a fatal error or running out of memory,
    answers no configs and the error: screening is advice, and without it
    the plan decides, as the race's answer does for the stitch."""
    P.set_policy(req["gates"]["precision"])
    c = get_compiled(req)
    room_for(c, 8)
    warm(c, c.problem.inputs(0))
    try:
        return SC.screen(c, req, flusher())
    except torch.cuda.OutOfMemoryError:
        raise  # handle() makes room and asks again
    except Exception as exc:
        if is_fatal(exc):
            raise
        traceback.print_exc(file=sys.stderr)
        return {"kernel": req.get("kernel"), "tried": [], "best": [], "compiles": 0,
                "error": (str(exc).splitlines() or [repr(exc)])[0][:300]}


def op_stitch(req):
    P.set_policy(req["gates"]["precision"])
    c = get_compiled(req)
    room_for(c)
    return V.stitch(c, req, flusher())


OPS = {
    "ping": op_ping, "bandwidth": op_bandwidth, "capture": op_capture,
    "profile": op_profile, "verify": op_verify, "stitch": op_stitch, "race": op_race,
    "screen": op_screen,
}


def is_fatal(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(m in text for m in FATAL_MARKS)


MEASURING = ("profile", "stitch", "race")


def handle(line: str) -> str:
    req = json.loads(line)
    op = OPS.get(req.get("op"))
    if op is None:
        return json.dumps({"ok": False, "error": f"unknown op {req.get('op')!r}", "fatal": False})
    try:
        out_of_memory = False
        try:
            result = op(req)
        except torch.cuda.OutOfMemoryError:
            traceback.print_exc(file=sys.stderr)
            out_of_memory = True
        if out_of_memory:
            # the references and inputs kept for other steps go to host
            # memory (or are dropped), the other compiled models too, and
            # the request runs once more: out of the except clause, whose
            # traceback held the failed attempt's tensors (a screen's
            # copies of its arguments) through the second
            ST.store().shrink()
            forget_others(req)
            gc.collect()
            torch.cuda.empty_cache()
            result = op(req)
        if req.get("op") in MEASURING and isinstance(result, dict):
            result.setdefault("measured_at", int(time.time()))  # when (PROTOCOL.md): the reports' date
        if isinstance(result, dict) and result.get("lost"):
            # what it ran killed the CUDA context: the answer stands, and
            # this worker is replaced (PROTOCOL.md, "lost"); nothing more
            # is asked of the context, which would fail the reply
            print(f"kopt: the CUDA context is lost: {result['lost']}", file=sys.stderr, flush=True)
            return json.dumps({"ok": True, "result": result, "fatal": True}, allow_nan=False, default=str)
        if ST.gpu_share() > 1:
            # workers beside this one on the GPU: what torch's allocator
            # holds unused goes back to the GPU, where they can have it
            torch.cuda.empty_cache()
        return json.dumps({"ok": True, "result": result}, allow_nan=False, default=str)
    except Exception as exc:  # every failure becomes a reply; the C side adds the id
        tb = traceback.format_exc().rstrip().splitlines()
        last = error_line(exc)
        fatal = is_fatal(exc)
        if isinstance(exc, torch.cuda.OutOfMemoryError) or fatal:
            try:
                forget()
            except Exception:
                fatal = True
        print("\n".join(tb), file=sys.stderr, flush=True)
        return json.dumps({"ok": False, "error": f"{req.get('op')}: {last}"[:500],
                           "detail": "\n".join(tb[-12:]), "fatal": fatal})
