"""Where the vendor calls stand: each GEMM and convolution that Inductor's
output code hands to cuBLAS or cuDNN, timed as torch makes it and against
the algorithms the vendor library itself ranks best at that shape.

The output code calls the vendor through ``extern_kernels.<op>(...)``; one
run with that namespace wrapped records every call's arguments (shapes,
strides, dtypes, scalars). Each distinct call is then replayed on fresh
buffers of the same layout: torch's own call, and cuBLASLt's
(``cublasLtMatmulAlgoGetHeuristic``) or cuDNN's
(``cudnnGetConvolutionForwardAlgorithm_v7``) top algorithms through the
worker's ``_kopt_vendor`` module (their C APIs), all timed alike (CUPTI
kernel time, L2 flushed, interleaved, median). An algorithm whose output
differs from torch's is reported and left out of the comparison.

What comes back says, per call, whether torch's pick leaves time on the
table; the analyst and the report read it. Nothing here changes the model.
"""

from __future__ import annotations

import json
from typing import Any

import torch

from . import measure as M

try:
    import _kopt_vendor as lib  # provided by kopt-worker
except ImportError:  # plain Python
    lib = None

from .vendor_plan import CONV_ARGS, CONVS, GEMMS, conv_problem, describe, gemm_problem, summarize
WORKSPACE = 32 << 20


# ---- recording the calls ----

def meta(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return {"tensor": list(x.shape), "stride": list(x.stride()), "dtype": str(x.dtype).removeprefix("torch.")}
    if isinstance(x, (list, tuple)):
        return [meta(y) for y in x]
    if isinstance(x, (int, float, bool, str)) or x is None:
        return x
    return repr(x)


class Recorder:
    """Stands in for the output code's ``extern_kernels`` namespace: passes
    every call through and records the vendor ones."""

    def __init__(self, real, sink: list):
        self._real, self._sink = real, sink

    def __getattr__(self, name):
        fn = getattr(self._real, name)
        if name not in GEMMS + CONVS:
            return fn

        def call(*args, **kwargs):
            self._sink.append({"op": name, "args": [meta(a) for a in args],
                               "kwargs": {k: meta(v) for k, v in kwargs.items()}})
            return fn(*args, **kwargs)

        return call


def record_calls(c, inputs) -> list[dict]:
    """Runs the compiled problem once with extern_kernels wrapped."""
    sink: list = []
    swapped = []
    for m in c.modules:
        real = m.__dict__.get("extern_kernels")
        if real is not None and not isinstance(real, Recorder):
            m.__dict__["extern_kernels"] = Recorder(real, sink)
            swapped.append((m, real))
    if not swapped:
        return []
    try:
        c.run(inputs)
        torch.cuda.synchronize()
    finally:
        for m, real in swapped:
            m.__dict__["extern_kernels"] = real
    return sink


# ---- replaying them ----

def make(m: dict, gen: torch.Generator) -> torch.Tensor:
    """A fresh tensor of m's shape, strides and dtype, random values."""
    shape, stride = m["tensor"], m["stride"]
    dtype = getattr(torch, m["dtype"])
    span = 1 + sum((s - 1) * st for s, st in zip(shape, stride) if s > 0)
    base = torch.randn(max(span, 1), generator=gen, device="cuda", dtype=torch.float32).to(dtype)
    return base.as_strided(shape, stride)


def build(x: Any, gen: torch.Generator) -> Any:
    if isinstance(x, dict) and "tensor" in x:
        return make(x, gen)
    if isinstance(x, list):
        return [build(y, gen) for y in x]
    return x


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    a, b = a.double(), b.double()
    scale = max(float(b.abs().max()), 1e-30) if b.numel() else 1.0
    return bool(torch.allclose(a, b, rtol=1e-2, atol=1e-3 * scale))


def probe_one(op: str, rec: dict, flush, calls: int, max_algos: int, tf32: bool) -> dict:
    from torch._inductor.select_algorithm import extern_kernels

    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    args, kwargs = rec["args"], rec["kwargs"]
    if op in GEMMS:
        p, why = gemm_problem(op, args, kwargs)
        libname = "cuBLASLt"
    else:
        p, why = conv_problem(args, kwargs)
        libname = "cuDNN"
    row = {"op": op, "lib": libname, "dtype": (p or {}).get("dtype")}
    if p is None:
        return {**row, "skipped": why}
    row["shape"] = describe(op, p)
    p.update(tf32=int(tf32), max_algos=max_algos, workspace=WORKSPACE)
    targs, tkw = build(args, gen), {k: build(v, gen) for k, v in kwargs.items()}
    stream = torch.cuda.current_stream().cuda_stream
    ws = torch.empty(WORKSPACE, dtype=torch.uint8, device="cuda")
    fns, outs = [], []
    if op in GEMMS:
        plan, algos = lib.gemm_plan(p)
        a, b = (targs[1], targs[2]) if op == "addmm" else (targs[0], targs[1])
        bias = None
        if op == "addmm":
            n = p["m"]
            bias = targs[0].as_strided((n,), (targs[0].stride()[-1],))
        out = tkw["out"]

        def torch_fn():
            getattr(extern_kernels, op)(*targs, **tkw)
        ref = out
        for al in algos:
            d = torch.empty_strided(out.shape, out.stride(), dtype=out.dtype, device="cuda")
            outs.append(d)
            fns.append(lambda r=al["rank"], d=d: lib.gemm_run(plan, r, b.data_ptr(), a.data_ptr(), d.data_ptr(),
                                                             None if bias is None else bias.data_ptr(),
                                                             ws.data_ptr(), WORKSPACE, stream))
    else:
        ca = dict(zip(CONV_ARGS, targs))
        ca.update(tkw)
        x, w = ca["input"], ca["weight"]
        conv_kw = {k: ca[k] for k in CONV_ARGS[3:] if k in ca}
        conv_kw["bias"] = None   # the convolution alone: cuDNN adds no bias either

        def torch_fn():
            return extern_kernels.convolution(x, w, **conv_kw)
        ref = torch_fn()
        torch.cuda.synchronize()
        p.update(y=list(ref.shape), y_stride=list(ref.stride()))
        plan, algos = lib.conv_plan(p)
        for al in algos:
            if al["workspace"] > WORKSPACE:
                al["skipped"] = "workspace over 32 MiB"
                continue
            y = torch.empty_strided(ref.shape, ref.stride(), dtype=ref.dtype, device="cuda")
            outs.append(y)
            fns.append(lambda r=al["rank"], y=y: lib.conv_run(plan, r, x.data_ptr(), w.data_ptr(), y.data_ptr(),
                                                             ws.data_ptr(), WORKSPACE, stream))
        algos = [al for al in algos if "skipped" not in al]
    # correctness first: one run each, compared with torch's own result
    torch_fn()
    ok = []
    for fn, d in zip(fns, outs):
        try:
            fn()
            torch.cuda.synchronize()
            ok.append(close(d, ref))
        except RuntimeError as e:
            ok.append(False)
            row.setdefault("errors", []).append(str(e)[:200])
    runs = [torch_fn] + [fn for fn, good in zip(fns, ok) if good]
    timed = M.timed_calls(runs, calls, flush)
    torch_ns = M.median([x.kernel_ns for x in timed[0]])
    row["torch_ns"] = torch_ns
    row["torch_kernels"] = sorted({r[0] for x in timed[0] for r in x.records})
    rows, t = [], iter(timed[1:])
    for al, good in zip(algos, ok):
        e = {"rank": al["rank"], "ok": good, **{k: al[k] for k in ("algo", "workspace") if k in al}}
        if good:
            e["ns"] = M.median([x.kernel_ns for x in next(t)])
        rows.append(e)
    row["algos"] = rows
    row.update(summarize(rows, torch_ns))
    return row


def probe(c, inputs, flush, calls: int = 10, max_algos: int = 8) -> dict:
    """Per distinct vendor call of the compiled problem, torch's time against
    the vendor's own ranked algorithms. Never raises for one call's sake."""
    recs = record_calls(c, inputs)
    if not recs:
        return {"calls": []}
    if lib is None:
        return {"status": "no _kopt_vendor module (run inside kopt-worker)", "calls": []}
    out, seen = [], {}
    tf32 = bool(torch.backends.cuda.matmul.allow_tf32)
    for rec in recs:
        sig = json.dumps(rec, sort_keys=True)
        if sig in seen:
            seen[sig]["count"] += 1
            continue
        try:
            row = probe_one(rec["op"], rec, flush, calls, max_algos, tf32)
        except RuntimeError as e:   # a vendor library that cannot pose it
            row = {"op": rec["op"], "skipped": str(e).splitlines()[0][:300]}
        row["count"] = 1
        seen[sig] = row
        out.append(row)
    torch.cuda.synchronize()
    M.drain()
    return {"status": lib.status(), "calls": out}
