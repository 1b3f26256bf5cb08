"""Measuring a candidate for the gates (the decisions are koptmake's).

verify: one candidate kernel swapped into the real compiled model; the
numbers of gate 1 (static), gate 2 (correctness over several seeds), the
fp64 reference errors where outputs differ, and gate 4 (kernel and model
times, baseline and candidate interleaved, L2 flushed). stitch: the same
for all winners of a model at once.

Stale memory: before each candidate run, blocks the size of the outputs are
filled with NaN and freed, so an output the candidate leaves unwritten shows
NaN instead of the baseline's values.
"""

from __future__ import annotations

import copy
import math

import torch

from . import kernels as K
from . import measure as M
from .inductor import Compiled


def finite(x):
    if x is None:
        return None
    x = float(x)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return 1e300 if x > 0 else -1e300
    return x


def flat(out) -> list:
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        r = []
        for o in out:
            r.extend(flat(o))
        return r
    return []


def poison(like: list) -> None:
    blocks = [torch.full_like(t, float("nan")) if t.is_floating_point() else torch.full_like(t, -1)
              for t in like]
    torch.cuda.synchronize()
    del blocks


def tolerance(gates: dict, dtype: str | None) -> tuple[float, float]:
    if dtype in ("float16", "bfloat16"):
        return float(gates.get("atol_half", 1e-2)), float(gates.get("rtol_half", 1e-2))
    return float(gates.get("atol", 1e-4)), float(gates.get("rtol", 1e-4))


def compare_output(i: int, b, c, spans, gates: dict) -> dict:
    """One output of one seed, in the shape of PROTOCOL.md's correctness entry."""
    dtype = str(b.dtype).removeprefix("torch.")
    r = {"index": i, "dtype": dtype, "shape_mismatch": False, "stride_mismatch": False,
         "dtype_mismatch": False, "aliases_input": False, "nan_mismatch": False,
         "inf_mismatch": False, "max_abs": 0.0, "max_rel": 0.0, "ref_max_abs": 0.0, "allclose": True}
    if c is None or tuple(b.shape) != tuple(c.shape):
        r.update(shape_mismatch=True, allclose=False)
        return r
    r["dtype_mismatch"] = b.dtype != c.dtype
    r["stride_mismatch"] = b.stride() != c.stride()
    if c.numel():
        p = c.untyped_storage().data_ptr()
        r["aliases_input"] = any(lo <= p < hi for lo, hi in spans)
    if not b.is_floating_point():
        r["allclose"] = bool(torch.equal(b, c.to(b.dtype)))
        r["max_abs"] = 0.0 if r["allclose"] else 1.0
        return r
    bd, cd = b.double(), c.double()
    r["nan_mismatch"] = not torch.equal(torch.isnan(bd), torch.isnan(cd))
    binf = torch.isinf(bd)
    r["inf_mismatch"] = not torch.equal(binf, torch.isinf(cd)) or not torch.equal(bd[binf], cd[binf])
    fin = torch.isfinite(bd) & torch.isfinite(cd)
    if fin.any():
        diff = (bd - cd).abs()[fin]
        ref = bd.abs()[fin]
        r["max_abs"] = finite(diff.max())
        r["ref_max_abs"] = finite(ref.max())
        nz = ref > 0
        r["max_rel"] = finite((diff[nz] / ref[nz]).max()) if nz.any() else 0.0
    atol, rtol = tolerance(gates, dtype)
    r["allclose"] = bool(torch.allclose(cd, bd, atol=atol, rtol=rtol, equal_nan=True))
    return r


def input_spans(inputs) -> list:
    spans = []
    for x in inputs:
        if isinstance(x, torch.Tensor) and x.numel():
            s = x.untyped_storage()
            spans.append((s.data_ptr(), s.data_ptr() + s.nbytes()))
    return spans


def rmse(ref: list, outs: list) -> float:
    num, den = 0.0, 0
    for r, o in zip(ref, outs):
        if not r.is_floating_point():
            continue
        d = (o.double() - r.double())
        d = d[torch.isfinite(d)]
        num += float((d * d).sum())
        den += d.numel()
    return math.sqrt(num / den) if den else 0.0


def fp64_reference(c: Compiled, inputs):
    prob = c.problem
    if prob.kind == "triton":
        return flat(prob.reference(*[x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]))
    tf32 = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        model = copy.deepcopy(prob.model).double()
        with torch.no_grad():
            return flat(model(*[x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]))
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = tf32


class Swaps:
    """Several kernel swaps at once (stitch), or none (the baseline)."""

    def __init__(self, c: Compiled, objs: dict):
        self.swaps = [K.Swap(c.modules, var, k) for var, k in objs.items()]

    def __enter__(self):
        for s in self.swaps:
            s.__enter__()

    def __exit__(self, *exc):
        for s in reversed(self.swaps):
            s.__exit__(*exc)
        return False


def build_candidate(c: Compiled, kernel: str, cand: dict, tag: str):
    decl = next((d for d in c.decls if d.name == kernel), None)
    if decl is None:
        raise KeyError(f"no Triton kernel {kernel} in the output code")
    src = cand.get("source") or decl.source
    if c.problem.kind == "triton":
        if cand.get("config"):
            raise ValueError("a standalone Triton kernel takes source candidates, not launch configs")
        return decl, K.load_jit(decl.name, src, c.problem.module)
    obj = K.load_kernel(decl.name, src, tag)
    if cand.get("config"):
        K.force_config(obj, cand["config"])
    return decl, obj


def precision_rows(c: Compiled, inputs, base: list, cand: list) -> dict:
    """Strict policy: both sides' error to the float64 reference, whether or
    not they are within tolerance (see gates/fp64.c)."""
    ref = fp64_reference(c, inputs)
    rows = []
    for i, (r, b) in enumerate(zip(ref, base)):
        if not b.is_floating_point() or i >= len(cand) or cand[i].shape != b.shape:
            continue
        rd = r.double()
        fin = torch.isfinite(rd)
        ref_rms = float(rd[fin].pow(2).mean().sqrt()) if fin.any() else 0.0
        rows.append({"index": i, "dtype": str(b.dtype).removeprefix("torch."),
                     "rmse_cand": finite(rmse([r], [cand[i]])), "rmse_base": finite(rmse([r], [b])),
                     "ref_rms": finite(ref_rms)})
    return {"outputs": rows}


def correctness(c: Compiled, swaps: dict, gates: dict) -> tuple[dict, dict | None]:
    """Seeds of fresh inputs (seed 0 = get_inputs as the user wrote it under
    seed 0), baseline vs candidate; where an output is not allclose and the
    gate set allows it, both are compared with the float64 reference."""
    seeds = int(gates.get("seeds", 5))
    rows, fp64_rows, prec = [], [], None
    for s in range(seeds):
        inputs = c.problem.inputs(s)
        base = [t.clone() for t in flat(c.run(inputs))]
        before = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
        poison(base)
        with Swaps(c, swaps):
            raw = c.run(inputs)
        torch.cuda.synchronize()
        cand = flat(raw)
        spans = input_spans(inputs)
        outs = [compare_output(i, b, cand[i] if i < len(cand) else None, spans, gates)
                for i, b in enumerate(base)]
        modified = any(isinstance(a, torch.Tensor) and not torch.equal(a, b) for a, b in zip(before, inputs))
        rows.append({"seed": s, "input_modified": bool(modified), "outputs": outs})
        if s == 0 and gates.get("precision", "strict") == "strict":
            prec = precision_rows(c, before, base, cand)
        bad = [o for o in outs if not o["allclose"] and not o["shape_mismatch"]]
        if bad and gates.get("fp64_fallback", True) and not fp64_rows:
            ref = fp64_reference(c, before)
            for o in outs:
                i = o["index"]
                if i < len(ref) and base[i].is_floating_point():
                    fp64_rows.append({"index": i, "dtype": o["dtype"],
                                      "rmse_cand": finite(rmse([ref[i]], [cand[i]])),
                                      "rmse_base": finite(rmse([ref[i]], [base[i]]))})
        del base, cand, raw, before
    corr = {"seeds": rows}
    if prec is not None:
        corr["precision"] = prec
    return corr, ({"outputs": fp64_rows} if fp64_rows else None)


def timing(c: Compiled, swaps: dict, gates: dict, flush, kernel: str | None) -> dict:
    inputs = c.problem.inputs(0)
    repeats = max(int(gates.get("repeats", 10)), 3)
    for _ in range(2):  # warm both sides (a source candidate autotunes on its first run)
        c.run(inputs)
        with Swaps(c, swaps):
            c.run(inputs)
    torch.cuda.synchronize()
    M.drain()

    def base():
        with Swaps(c, {}):
            c.run(inputs)

    def cand():
        with Swaps(c, swaps):
            c.run(inputs)

    b, k = M.timed_calls([base, cand], repeats, flush)
    out = {"model_base_ns": [finite(x.event_ns) for x in b], "model_cand_ns": [finite(x.event_ns) for x in k],
           # device spans: koptmake holds the host's part at the baseline's
           # (gates/gate.c, hold_host), since swapping kernel objects here can
           # change it where the deployment does not
           "model_base_dev_ns": [finite(x.span_ns) for x in b],
           "model_cand_dev_ns": [finite(x.span_ns) for x in k]}
    if kernel:
        out["base_ns"] = [float(sum(r[2] - r[1] for r in x.records if r[0] == kernel)) for x in b]
        out["cand_ns"] = [float(sum(r[2] - r[1] for r in x.records if r[0] == kernel)) for x in k]
    return out


def static_check(c: Compiled, kernel: str, cand: dict) -> dict:
    if not cand.get("source"):
        return {"ok": True, "reason": "config only"}
    from . import static_gate

    decl = next((d for d in c.decls if d.name == kernel), None)
    ok, reason = static_gate.check(cand["source"], decl.source if decl else "")
    return {"ok": bool(ok), "reason": str(reason)}


def is_sticky(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(m in text for m in ("illegal", "launch failure", "misaligned", "device-side assert"))


def measure(c: Compiled, swaps: dict, gates: dict, flush, kernel: str | None, numbers: dict) -> dict:
    """correctness, fp64 where needed, then perf; stops after a failed run."""
    try:
        corr, fp64 = correctness(c, swaps, gates)
    except Exception as exc:
        if is_sticky(exc):
            raise
        numbers["correctness"] = {"seeds": [], "error": f"{type(exc).__name__}: {exc}"[:400]}
        return numbers
    prec = corr.pop("precision", None)
    numbers["correctness"] = corr
    if prec is not None:
        numbers["precision"] = prec
    if fp64 is not None:
        numbers["fp64"] = fp64
    numbers["perf"] = timing(c, swaps, gates, flush, kernel)
    return numbers


def verify(c: Compiled, req: dict, flush) -> dict:
    gates = req.get("gates") or {}
    kernel, cand = req["kernel"], req.get("candidate") or {}
    numbers = {"static": static_check(c, kernel, cand)}
    if not numbers["static"]["ok"]:
        return {"numbers": numbers}
    try:
        decl, obj = build_candidate(c, kernel, cand, req.get("tag") or "candidate")
    except Exception as exc:
        numbers["static"] = {"ok": False, "reason": f"does not build: {type(exc).__name__}: {exc}"[:400]}
        return {"numbers": numbers}
    return {"numbers": measure(c, {decl.var: obj}, gates, flush, kernel, numbers)}


def stitch(c: Compiled, req: dict, flush) -> dict:
    gates = req.get("gates") or {}
    swaps, code = {}, c.output_code
    for i, w in enumerate(req.get("winners") or []):
        decl, obj = build_candidate(c, w["kernel"], w["candidate"], f"stitch-{i}")
        swaps[decl.var] = obj
        if w["candidate"].get("source"):
            code = code.replace(decl.source, w["candidate"]["source"])
    numbers = measure(c, swaps, gates, flush, None, {})
    perf = numbers.get("perf") or {}
    base = sorted(perf.get("model_base_ns") or [0.0])
    opt = sorted(perf.get("model_cand_ns") or [0.0])
    b, o = base[len(base) // 2], opt[len(opt) // 2]
    return {"numbers": numbers, "output_code": code, "base_ns_per_call": b, "opt_ns_per_call": o,
            "speedup": b / o if o else None}
