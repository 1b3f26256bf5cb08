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


def aliases(outs, inputs) -> bool:
    spans = []
    for x in inputs:
        if isinstance(x, torch.Tensor) and x.numel():
            s = x.untyped_storage()
            spans.append((s.data_ptr(), s.data_ptr() + s.nbytes()))
    for o in outs:
        if not o.numel():
            continue
        p = o.untyped_storage().data_ptr()
        if any(a <= p < b for a, b in spans):
            return True
    return False


def compare(base: list, cand: list, inputs_before: list, inputs_after: list, cand_raw, inputs) -> dict:
    r = {"shape_mismatch": False, "dtype_mismatch": False, "stride_mismatch": False,
         "nan_mismatch": False, "inf_mismatch": False, "max_abs": 0.0, "max_rel": 0.0,
         "allclose": True, "input_modified": False, "aliases_input": False, "dtype": None,
         "outputs": len(base)}
    if len(base) != len(cand):
        r["shape_mismatch"] = True
        r["allclose"] = False
        return r
    for b, c in zip(base, cand):
        r["dtype"] = r["dtype"] or str(b.dtype).removeprefix("torch.")
        if b.shape != c.shape:
            r["shape_mismatch"] = True
            r["allclose"] = False
            continue
        if b.dtype != c.dtype:
            r["dtype_mismatch"] = True
        if b.stride() != c.stride():
            r["stride_mismatch"] = True
        if not b.is_floating_point():
            if not torch.equal(b, c.to(b.dtype)):
                r["max_abs"] = max(r["max_abs"], 1.0)
                r["allclose"] = False
            continue
        bd, cd = b.double(), c.double()
        if not torch.equal(torch.isnan(bd), torch.isnan(cd)):
            r["nan_mismatch"] = True
        if not torch.equal(torch.isinf(bd), torch.isinf(cd)) or not torch.equal(bd[torch.isinf(bd)], cd[torch.isinf(bd)]):
            r["inf_mismatch"] = True
        ok = torch.isfinite(bd) & torch.isfinite(cd)
        diff = (bd - cd).abs()[ok]
        if diff.numel():
            r["max_abs"] = max(r["max_abs"], float(diff.max()))
            rel = diff / bd.abs()[ok].clamp_min(1e-30)
            r["max_rel"] = max(r["max_rel"], float(rel.max()))
    for a, b in zip(inputs_before, inputs_after):
        if isinstance(a, torch.Tensor) and not torch.equal(a, b):
            r["input_modified"] = True
    r["aliases_input"] = aliases(flat(cand_raw), inputs)
    return r


def tolerance(gates: dict, dtype: str | None) -> tuple[float, float]:
    half = dtype in ("float16", "bfloat16")
    if half:
        return float(gates.get("atol_half", 1e-2)), float(gates.get("rtol_half", 1e-2))
    return float(gates.get("atol", 1e-4)), float(gates.get("rtol", 1e-4))


def within(base: list, cand: list, atol: float, rtol: float) -> bool:
    for b, c in zip(base, cand):
        if b.shape != c.shape:
            return False
        if b.is_floating_point():
            if not torch.allclose(c.double(), b.double(), atol=atol, rtol=rtol, equal_nan=True):
                return False
        elif not torch.equal(b, c.to(b.dtype)):
            return False
    return True


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


def correctness(c: Compiled, swaps: dict, gates: dict) -> tuple[list, bool]:
    """Seeds of fresh inputs (seed 0 = the user's get_inputs as given), baseline
    vs candidate; the fp64 reference where they differ beyond tolerance."""
    seeds = int(gates.get("seeds", 5))
    rows, need_fp64 = [], False
    for s in range(seeds):
        inputs = c.problem.inputs(s)
        base = [t.clone() for t in flat(c.run(inputs))]
        before = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
        poison(base)
        with Swaps(c, swaps):
            raw = c.run(inputs)
        torch.cuda.synchronize()
        cand = flat(raw)
        row = compare(base, cand, before, inputs, raw, inputs)
        atol, rtol = tolerance(gates, row["dtype"])
        row["seed"] = s
        row["allclose"] = row["allclose"] and not row["shape_mismatch"] and within(base, cand, atol, rtol)
        if not row["allclose"] and gates.get("fp64_fallback", True) and not row["shape_mismatch"]:
            ref = fp64_reference(c, before)
            row["rmse_base"] = finite(rmse(ref, base))
            row["rmse_cand"] = finite(rmse(ref, cand))
            need_fp64 = True
        row["max_abs"], row["max_rel"] = finite(row["max_abs"]), finite(row["max_rel"])
        rows.append(row)
        del base, cand, raw, before
    return rows, need_fp64


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
    out = {"model_base_ns": [x.event_ns for x in b], "model_cand_ns": [x.event_ns for x in k]}
    if kernel:
        out["base_ns"] = [float(sum(r[2] - r[1] for r in x.records if r[0] == kernel)) for x in b]
        out["cand_ns"] = [float(sum(r[2] - r[1] for r in x.records if r[0] == kernel)) for x in k]
    return out


def static_check(c: Compiled, kernel: str, cand: dict) -> dict | None:
    if not cand.get("source"):
        return None
    from . import static_gate

    decl = next((d for d in c.decls if d.name == kernel), None)
    ok, reason = static_gate.check(cand["source"], decl.source if decl else "")
    return {"ok": bool(ok), "reason": reason}


def verify(c: Compiled, req: dict, flush) -> dict:
    gates = req.get("gates") or {}
    kernel, cand = req["kernel"], req.get("candidate") or {}
    numbers: dict = {}
    st = static_check(c, kernel, cand)
    if st is not None:
        numbers["static"] = st
        if not st["ok"]:
            return {"numbers": numbers}
    try:
        decl, obj = build_candidate(c, kernel, cand, req.get("tag") or "candidate")
    except Exception as exc:
        numbers["build_error"] = f"{type(exc).__name__}: {exc}"[:400]
        return {"numbers": numbers}
    swaps = {decl.var: obj}
    try:
        rows, _ = correctness(c, swaps, gates)
    except Exception as exc:
        if "illegal" in str(exc).lower() or "launch failure" in str(exc).lower():
            raise
        numbers["run_error"] = f"{type(exc).__name__}: {exc}"[:400]
        return {"numbers": numbers}
    numbers["seeds"] = rows
    numbers.update(timing(c, swaps, gates, flush, kernel))
    return {"numbers": numbers}


def stitch(c: Compiled, req: dict, flush) -> dict:
    gates = req.get("gates") or {}
    swaps, code = {}, c.output_code
    for i, w in enumerate(req.get("winners") or []):
        decl, obj = build_candidate(c, w["kernel"], w["candidate"], f"stitch-{i}")
        swaps[decl.var] = obj
        if w["candidate"].get("source"):
            code = code.replace(decl.source, w["candidate"]["source"])
    rows, _ = correctness(c, swaps, gates)
    numbers = {"seeds": rows}
    numbers.update(timing(c, swaps, gates, flush, None))
    return {"numbers": numbers, "output_code": code}
