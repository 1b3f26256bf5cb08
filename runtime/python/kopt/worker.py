"""The torch side of kopt-worker: one function per protocol op.

kopt-worker (C) reads each request line, checks it is JSON, and calls
``handle(line)``; the reply string goes back to the engine. The protocol is
in runtime/PROTOCOL.md. Nothing here writes to stdout (kopt-worker points
fd 1 at stderr anyway).
"""

from __future__ import annotations

import gc
import json
import platform
import sys
import traceback

import torch

from . import kernels as K
from . import measure as M
from . import records as R
from . import vendor as VD
from . import verify as V
from .inductor import Compiled, compile_problem, record_kernel_args
from .loader import load_problem

PROTOCOL = 1

FATAL_MARKS = (
    "illegal memory access", "illegal instruction", "device-side assert", "unspecified launch failure",
    "misaligned address", "an illegal address", "cuda error: launch failure", "context is destroyed",
)


class State:
    """What one worker keeps between requests: the last compiled problem."""

    key: str | None = None
    compiled: Compiled | None = None
    flusher: M.Flusher | None = None
    copy_gbps: float | None = None


S = State()


def driver_version() -> str:
    try:
        with open("/proc/driver/nvidia/version") as f:
            for word in f.readline().split():
                if word[:1].isdigit() and "." in word:
                    return word
    except OSError:
        pass
    return str(torch._C._cuda_getDriverVersion())


def env() -> dict:
    import triton

    p = torch.cuda.get_device_properties(0)
    return {
        "gpu": p.name, "cc": f"{p.major}.{p.minor}", "driver": driver_version(),
        "cuda": torch.version.cuda, "torch": torch.__version__, "triton": triton.__version__,
        "python": platform.python_version(), "sms": p.multi_processor_count,
        "memory_gib": round(p.total_memory / 2**30, 1),
    }


def hello() -> str:
    return json.dumps({"hello": "kopt-worker", "protocol": PROTOCOL, "env": env()})


def set_precision(policy: str) -> None:
    tf32 = policy != "strict"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32


def get_compiled(req: dict) -> Compiled:
    model, variant = req["model"], req.get("variant") or {"name": "default"}
    seed = int(req.get("seed", 0))
    key = json.dumps([model["path"], model["kind"], variant, seed], sort_keys=True)
    if S.key != key or S.compiled is None:
        S.key, S.compiled = None, None
        gc.collect()
        torch.cuda.empty_cache()
        problem = load_problem(model, seed)
        S.compiled = compile_problem(problem, variant)
        S.key = key
    return S.compiled


def flusher() -> M.Flusher:
    if S.flusher is None:
        S.flusher = M.Flusher()
    return S.flusher


def inventory(c: Compiled, names_seen: list[str], args: dict) -> list[dict]:
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


def op_ping(req):
    return {}


def op_bandwidth(req):
    if S.copy_gbps is None:
        S.copy_gbps = M.copy_bandwidth_gbps()
    return {"copy_gbps": S.copy_gbps}


def warm(c: Compiled, inputs, n: int = 3):
    for _ in range(n):
        c.run(inputs)
    torch.cuda.synchronize()
    M.drain()


def op_capture(req):
    set_precision("strict")
    c = get_compiled(req)
    inputs = c.problem.inputs(0)
    warm(c, inputs)
    args = record_kernel_args(c, inputs)
    M.need_cupti()
    M.drain()
    c.run(inputs)
    torch.cuda.synchronize()
    names = []
    for r in M.cupti.take():
        if r[0] not in names:
            names.append(r[0])
    return {
        "output_code": c.output_code, "compile_s": round(c.compile_s, 3),
        "inputs": [{"shape": list(x.shape), "dtype": str(x.dtype).removeprefix("torch.")}
                   for x in inputs if isinstance(x, torch.Tensor)],
        "kernels": inventory(c, names, args),
    }


def op_profile(req):
    set_precision("strict")
    c = get_compiled(req)
    inputs = c.problem.inputs(0)
    warm(c, inputs, int(req.get("warmup", 3)))
    args = record_kernel_args(c, inputs)
    n = int(req.get("calls", 20))
    calls = M.timed_calls([lambda: c.run(inputs)], n, flusher())[0]
    raw = [{"t0": x.t0, "t1": x.t1, "event_ns": x.event_ns, "records": x.records} for x in calls] if req.get("raw") else None
    peak = op_bandwidth(req)["copy_gbps"]
    ops = K.aten_ops(c.output_code)
    order, per = R.per_kernel([x.records for x in calls])
    inv = {k["name"]: k for k in inventory(c, order, args)}
    kernel_total = sum(e["ns"] for e in per.values()) / n
    rows = []
    for name in order:
        e, k = per[name], inv[name]
        ns = e["ns"] / n
        launches = e["launches"] / n
        nbytes = sum(a["bytes"] for a in k["args"]) if k["kind"] == "triton" and k["args"] else None
        gbps = nbytes * launches / ns if nbytes and ns > 0 else None   # bytes per ns = GB/s
        rows.append({
            "name": name, "kind": k["kind"], "source_hash": k["source_hash"],
            "launches_per_call": launches, "ns_per_call": ns,
            "share": ns / kernel_total if kernel_total else 0.0,
            "bytes": nbytes, "achieved_gbps": gbps,
            "frac_peak": gbps / peak if gbps else None,
            **({"aten": ops[name]} if ops.get(name) else {}),
        })
    rows.sort(key=lambda r: -r["ns_per_call"])
    try:
        eager = eager_vs_compiled(c, inputs, flusher())
    except Exception as exc:  # advice too
        traceback.print_exc(file=sys.stderr)
        eager = {"error": str(exc).splitlines()[0][:300] if str(exc) else repr(exc)}
    try:
        vendor = VD.probe(c, inputs, flusher())
    except Exception as exc:  # the vendor view is advice: a profile stands without it
        traceback.print_exc(file=sys.stderr)
        vendor = {"calls": [], "error": str(exc).splitlines()[0][:300] if str(exc) else repr(exc)}
    return {
        "calls": n,
        "model_ns_per_call": M.median([x.event_ns for x in calls]),
        "device_ns_per_call": M.median([x.span_ns for x in calls]),
        "kernel_ns_per_call": kernel_total,
        "peak_copy_gbps": peak,
        "kernels": rows,
        "vendor": vendor,
        **({"eager": eager} if eager else {}),
        **({"raw_calls": raw} if raw else {}),
    }


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
    set_precision((req.get("gates") or {}).get("precision", "strict"))
    c = get_compiled(req)
    return V.verify(c, req, flusher())


def op_race(req):
    """The compiled baselines of a model's variants, timed side by side
    (interleaved, L2 flushed): the ratios between variants come from one
    run, not from separate steps whose absolute times drift."""
    set_precision((req.get("gates") or {}).get("precision", "strict"))
    model, seed = req["model"], int(req.get("seed", 0))
    S.key, S.compiled = None, None
    gc.collect()
    torch.cuda.empty_cache()
    n = int(req.get("calls", 20))
    comps: list = []
    try:
        problem = load_problem(model, seed)
        torch._dynamo.reset()
        comps = [compile_problem(problem, v, reset=False) for v in req["variants"]]
        inputs = problem.inputs(0)
        for c in comps:
            warm(c, inputs)
        timed = M.timed_calls([lambda c=c: c.run(inputs) for c in comps], n, flusher())
        return {"calls": n, "ns": [M.median([x.event_ns for x in calls]) for calls in timed]}
    except Exception as exc:
        if is_fatal(exc):
            raise
        # the race refines the choice; without it the stitches' own times decide
        traceback.print_exc(file=sys.stderr)
        return {"calls": 0, "ns": None, "error": (str(exc).splitlines() or [repr(exc)])[0][:300]}
    finally:
        del comps
        torch._dynamo.reset()
        gc.collect()
        torch.cuda.empty_cache()


def op_stitch(req):
    set_precision((req.get("gates") or {}).get("precision", "strict"))
    c = get_compiled(req)
    return V.stitch(c, req, flusher())


OPS = {
    "ping": op_ping, "bandwidth": op_bandwidth, "capture": op_capture,
    "profile": op_profile, "verify": op_verify, "stitch": op_stitch, "race": op_race,
}


def is_fatal(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(m in text for m in FATAL_MARKS)


def handle(line: str) -> str:
    req = json.loads(line)
    op = OPS.get(req.get("op"))
    if op is None:
        return json.dumps({"ok": False, "error": f"unknown op {req.get('op')!r}", "fatal": False})
    try:
        result = op(req)
        return json.dumps({"ok": True, "result": result}, allow_nan=False, default=str)
    except Exception as exc:  # every failure becomes a reply; the C side adds the id
        tb = traceback.format_exc().rstrip().splitlines()
        last = tb[-1] if tb else repr(exc)
        fatal = is_fatal(exc)
        if isinstance(exc, torch.cuda.OutOfMemoryError) or fatal:
            S.key, S.compiled = None, None
            gc.collect()
            try:
                torch.cuda.empty_cache()
            except Exception:
                fatal = True
        print("\n".join(tb), file=sys.stderr, flush=True)
        return json.dumps({"ok": False, "error": f"{req.get('op')}: {last}"[:500],
                           "detail": "\n".join(tb[-12:]), "fatal": fatal})
