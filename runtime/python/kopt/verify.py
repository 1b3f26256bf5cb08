"""Measuring a candidate for the gates (the decisions are koptmake's).

verify: one candidate kernel swapped into the real compiled model; the
numbers of gate 1 (static), gate 2 (correctness over several seeds), the
fp64 reference errors where outputs differ, and gate 4 (kernel and model
times, baseline and candidate interleaved, L2 flushed). stitch: the same
for all winners of a model at once.

Stale memory: before each candidate run, blocks the size of the outputs are
filled with NaN and freed, so an output the candidate leaves unwritten shows
NaN instead of the baseline's values.

The gate settings come whole with each request (every field of the spec's
gates set, PROTOCOL.md); the worker keeps no defaults of its own that could
drift from koptmake's. min_pairs, derived by koptmake, may be absent (an
older koptmake): then every pair is timed.
"""

from __future__ import annotations

import copy
import math
import statistics
import time

import torch

from . import helion as H
from . import kernels as K
from . import measure as M
from . import memcheck
from . import precision as P
from . import state as ST
from . import static_config, static_gate
from .errors import error_line
from .gate_rules import perf_decided, tolerance  # noqa: F401 (screen.py reads tolerance here)
from .problem import Compiled, Swaps, fresh


def finite(x):
    if x is None:
        return None
    x = float(x)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return math.copysign(1e300, x)
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
    atol, rtol = tolerance(gates, dtype)
    r["allclose"] = True
    for bd, cd in chunks(b, c):
        bd, cd = bd.double(), cd.double()
        r["nan_mismatch"] |= not torch.equal(torch.isnan(bd), torch.isnan(cd))
        binf = torch.isinf(bd)
        r["inf_mismatch"] |= not torch.equal(binf, torch.isinf(cd)) or not torch.equal(bd[binf], cd[binf])
        fin = torch.isfinite(bd) & torch.isfinite(cd)
        if fin.any():
            diff = (bd - cd).abs()[fin]
            ref = bd.abs()[fin]
            r["max_abs"] = max(r["max_abs"], finite(diff.max()))
            r["ref_max_abs"] = max(r["ref_max_abs"], finite(ref.max()))
            nz = ref > 0
            if nz.any():
                r["max_rel"] = max(r["max_rel"], finite((diff[nz] / ref[nz]).max()))
        r["allclose"] &= bool(torch.allclose(cd, bd, atol=atol, rtol=rtol, equal_nan=True))
    return r


CHUNK = 1 << 26   # elements: a float64 temporary of 512 MB


def chunks(*ts):
    """Aligned flat slices of same-shaped tensors, CHUNK elements at a time:
    comparing a 6 GB output in float64 at once takes several 12 GB
    temporaries."""
    flats = [t.reshape(-1) for t in ts]
    n = flats[0].numel()
    for i in range(0, n, CHUNK):
        yield tuple(f[i:i + CHUNK] for f in flats)


def allclose64(a, b, atol: float, rtol: float) -> bool:
    return all(bool(torch.allclose(x.double(), y.double(), atol=atol, rtol=rtol, equal_nan=True))
               for x, y in chunks(a, b))


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
        for rc, oc in chunks(r, o):
            d = (oc.double() - rc.double())
            d = d[torch.isfinite(d)]
            num += float((d * d).sum())
            den += d.numel()
    return math.sqrt(num / den) if den else 0.0


def _double(inputs) -> list:
    return [x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]


def fp64_outputs(model, inputs) -> list:
    """A copy of model run in float64 on the inputs in float64, TF32 off:
    the outputs the float64 gate compares with (tests/gpu/deploy.py too)."""
    with P.policy_flags("strict"):
        model = copy.deepcopy(model).double()
        with torch.no_grad():
            return [t.detach() for t in flat(model(*_double(inputs)))]


def fp64_reference(c: Compiled, inputs):
    prob = c.problem
    if prob.kind in ("triton", "helion"):
        return flat(prob.reference(*_double(inputs)))
    return fp64_outputs(prob.model, inputs)


def candidate_source(decl, cand: dict) -> str:
    """A candidate's kernel text for kernel declaration decl (knobs.candidate_text)."""
    from . import knobs as N

    return N.candidate_text(decl.source, cand)


def build_candidate(c: Compiled, kernel: str, cand: dict, tag: str):
    if c.problem.kind == "helion":
        return H.candidate(c, kernel, cand)
    decl = next((d for d in c.decls if d.name == kernel), None)
    if decl is None:
        raise KeyError(f"no Triton kernel {kernel} in the output code")
    src = candidate_source(decl, cand)
    if c.problem.kind == "triton":
        if cand.get("config"):
            raise ValueError("a standalone Triton kernel takes source candidates, not launch configs")
        return decl, K.load_jit(decl.name, src, c.problem.module)
    return decl, K.load_kernel(decl.name, src, tag, cand.get("config") or None)


class Refs:
    """The references of one request, from the worker's store (state.py):
    the compiled baseline's outputs per (model, variant, seed, output code)
    and the float64 reference per (model file, model seed, input seed),
    computed once and reused by every candidate. Counts what came from the
    store, for the verdict (`koptmake -t why`)."""

    def __init__(self, c: Compiled):
        self.c = c
        self.code = K.source_hash(c.output_code)
        self.used = {"baseline": [0, 0], "fp64": [0, 0]}   # [cached, computed]

    def _count(self, what: str, hit: bool) -> None:
        self.used[what][0 if hit else 1] += 1

    def baseline(self, seed: int) -> list:
        c = self.c

        def make():
            # with their own strides (clone() makes a slice of a larger
            # buffer contiguous, and the gate compares strides too)
            out = [ST.copy_strided(t, t.device) for t in flat(c.run(c.problem.inputs(seed)))]
            c.problem.extra["out_bytes"] = ST.nbytes(out)
            return out
        out, hit = ST.store().fetch(("base", c.key, self.code, seed), make)
        self._count("baseline", hit)
        return out

    def fp64(self, seed: int) -> list:
        p = self.c.problem

        def make():
            return fp64_reference(self.c, p.master(seed)[0])
        out, hit = ST.store().fetch(("fp64", p.path, p.digest, p.seed, seed), make)
        self._count("fp64", hit)
        return out

    def summary(self) -> dict:
        """{"baseline": "cached 4, computed 1", "fp64": ..., "key": ...}"""
        out = {k: f"cached {v[0]}, computed {v[1]}" for k, v in self.used.items() if v[0] or v[1]}
        out["key"] = f"{K.source_hash(self.c.key)[:12]}/{self.code[:12]}"
        return out


def precision_rows(refs: Refs, seed: int, base: list, cand: list) -> dict:
    """Strict policy: both sides' error to the float64 reference, whether or
    not they are within tolerance (see gates/fp64.c)."""
    ref = refs.fp64(seed)
    rows = []
    for i, (r, b) in enumerate(zip(ref, base)):
        if not b.is_floating_point() or i >= len(cand) or cand[i].shape != b.shape:
            continue
        sq, cnt = 0.0, 0
        for (rc,) in chunks(r):
            rd = rc.double()
            rd = rd[torch.isfinite(rd)]
            sq += float(rd.pow(2).sum())
            cnt += rd.numel()
        ref_rms = math.sqrt(sq / cnt) if cnt else 0.0
        rows.append({"index": i, "dtype": str(b.dtype).removeprefix("torch."),
                     "rmse_cand": finite(rmse([r], [cand[i]])), "rmse_base": finite(rmse([r], [b])),
                     "ref_rms": finite(ref_rms)})
    return {"outputs": rows}


STRUCTURAL = ("shape_mismatch", "stride_mismatch", "dtype_mismatch", "aliases_input", "nan_mismatch", "inf_mismatch")


def certain_failure(outs: list, modified: bool, gates: dict) -> bool:
    """A seed whose failure no later seed and no float64 fallback can undo
    (gates/correctness.c: structural flags are never rescued; errors beyond
    tolerance are, by gate 3, only where the gate set allows it)."""
    if modified or any(o[f] for o in outs for f in STRUCTURAL):
        return True
    return any(not o["allclose"] for o in outs) and not gates["fp64_fallback"]


def correctness(c: Compiled, swaps: dict, gates: dict, refs: Refs) -> tuple[dict, dict | None, bool]:
    """Seeds of fresh inputs (seed 0 = get_inputs as the user wrote it under
    seed 0), baseline vs candidate; where an output is not allclose and the
    gate set allows it, both are compared with the float64 reference. Stops
    at the first seed that fails for certain (the gate then fails on that
    seed's reason). Returns (correctness, fp64 or None, certain failure)."""
    seeds = int(gates["seeds"])
    rows, fp64_rows, prec = [], [], None
    for s in range(seeds):
        master = c.problem.master(s)[0]
        base = refs.baseline(s)
        inputs = [fresh(x) for x in master]
        poison(base)
        with Swaps(c, swaps):
            raw = c.run(inputs)
        torch.cuda.synchronize()
        cand = flat(raw)
        spans = input_spans(inputs)
        outs = [compare_output(i, b, cand[i] if i < len(cand) else None, spans, gates)
                for i, b in enumerate(base)]
        modified = any(isinstance(a, torch.Tensor) and not torch.equal(a, m) for a, m in zip(inputs, master))
        rows.append({"seed": s, "input_modified": bool(modified), "outputs": outs})
        if s == 0 and gates["precision"] == "strict":
            prec = precision_rows(refs, s, base, cand)
        bad = [o for o in outs if not o["allclose"] and not o["shape_mismatch"]]
        if bad and gates["fp64_fallback"] and not fp64_rows:
            ref = refs.fp64(s)
            for o in outs:
                i = o["index"]
                if i < len(ref) and base[i].is_floating_point():
                    fp64_rows.append({"index": i, "dtype": o["dtype"],
                                      "rmse_cand": finite(rmse([ref[i]], [cand[i]])),
                                      "rmse_base": finite(rmse([ref[i]], [base[i]]))})
        stop = certain_failure(outs, modified, gates)
        del base, cand, raw, inputs
        if stop:
            corr = {"seeds": rows, "stopped": f"seed {s} fails for certain"}
            if prec is not None:
                corr["precision"] = prec
            return corr, ({"outputs": fp64_rows} if fp64_rows else None), True
    corr = {"seeds": rows}
    if prec is not None:
        corr["precision"] = prec
    return corr, ({"outputs": fp64_rows} if fp64_rows else None), False


def timing(c: Compiled, swaps: dict, gates: dict, flush, kernel: str | None, watch: tuple = ()) -> dict:
    """Timing pairs, baseline and candidate interleaved, for gate 4: the
    model's times, and kernel's; and each kernel of watch's device time per
    call on both sides (out["watch"]: a stitch's winners from another
    shape's search, rules/shapes.c)."""
    inputs = c.problem.inputs(0)
    repeats = max(int(gates["repeats"]), 3)  # the perf gate wants 3 pairs at least
    # pairs before the sequential test may stop (koptmake sends its own
    # minimum; without one, every pair is run)
    least = min(max(int(gates.get("min_pairs", repeats)), 3), repeats)
    gamma = gates["gamma"]
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

    out = {"model_base_ns": [], "model_cand_ns": [], "model_base_dev_ns": [], "model_cand_dev_ns": []}
    if kernel:
        out["base_ns"], out["cand_ns"] = [], []
    if watch:
        out["watch"] = {w: {"base": [], "cand": []} for w in watch}
    n, step = 0, least
    while n < repeats:
        b, k = M.timed_calls([base, cand], step, flush)
        n += step
        # device spans: koptmake holds the host's part at the baseline's
        # (gates/gate.c, hold_host), since swapping kernel objects here can
        # change it where the deployment does not
        out["model_base_ns"] += [finite(x.event_ns) for x in b]
        out["model_cand_ns"] += [finite(x.event_ns) for x in k]
        out["model_base_dev_ns"] += [finite(x.span_ns) for x in b]
        out["model_cand_dev_ns"] += [finite(x.span_ns) for x in k]
        if kernel:
            out["base_ns"] += [float(sum(r[2] - r[1] for r in x.records if r[0] == kernel)) for x in b]
            out["cand_ns"] += [float(sum(r[2] - r[1] for r in x.records if r[0] == kernel)) for x in k]
        for w in watch:
            out["watch"][w]["base"] += [float(sum(r[2] - r[1] for r in x.records if r[0] == w)) for x in b]
            out["watch"][w]["cand"] += [float(sum(r[2] - r[1] for r in x.records if r[0] == w)) for x in k]
        if n < repeats and gamma is not None:
            decided = perf_decided(out, float(gamma), kernel)
            if decided:
                out["stopped"] = f"{decided} after {n} of {repeats} pairs"
                break
        step = min(max(1, least // 2), repeats - n)
    return out


def eager_outputs(c: Compiled, inputs: list) -> list:
    """The problem run without torch.compile: the model in eager mode, or a
    standalone Triton file's reference()."""
    p = c.problem
    with torch.no_grad():
        out = p.model(*inputs) if p.kind == "torch" else p.reference(*inputs)
    return [t.detach().clone() for t in flat(out)]


def baseline_check(c: Compiled, gates: dict) -> dict:
    """The compiled baseline against eager, seed by seed, at the gates'
    tolerances; where they differ, both against the float64 reference
    (koptmake decides: gates/baseline.c). The references computed here stay
    in the store for the candidates' gates."""
    refs = Refs(c)
    rows = []
    for s in range(int(gates["seeds"])):
        master = c.problem.master(s)[0]
        comp = refs.baseline(s)
        eag = eager_outputs(c, [fresh(x) for x in master])
        outs, ref = [], None
        for i, (co, eo) in enumerate(zip(comp, eag)):
            r = compare_output(i, eo, co, [], gates)
            del r["aliases_input"], r["stride_mismatch"]
            if not r["allclose"] and not r["shape_mismatch"] and not eo.is_floating_point():
                # integers (argmax, counts): the reference's own, exactly
                ref = refs.fp64(s) if ref is None else ref
                if i < len(ref) and ref[i].shape == eo.shape:
                    r["eager_close64"] = bool(torch.equal(eo, ref[i].to(eo.dtype)))
                    r["compiled_close64"] = bool(torch.equal(co.to(eo.dtype), ref[i].to(eo.dtype)))
            elif not r["allclose"] and not r["shape_mismatch"]:
                ref = refs.fp64(s) if ref is None else ref
                if i < len(ref):
                    atol, rtol = tolerance(gates, r["dtype"])
                    r["rmse_compiled"] = finite(rmse([ref[i]], [co]))
                    r["rmse_eager"] = finite(rmse([ref[i]], [eo]))
                    r["eager_close64"] = allclose64(eo, ref[i], atol, rtol)
                    r["compiled_close64"] = allclose64(co, ref[i], atol, rtol)
            outs.append(r)
        if len(comp) != len(eag):
            outs.append({"index": min(len(comp), len(eag)), "dtype": "float32", "shape_mismatch": True,
                         "dtype_mismatch": False, "nan_mismatch": False, "inf_mismatch": False,
                         "max_abs": 0.0, "max_rel": 0.0, "ref_max_abs": 0.0, "allclose": False})
        rows.append({"seed": s, "outputs": outs})
        del comp, eag, ref
    return {"seeds": rows, "reference": refs.summary()}


def static_check(c: Compiled, kernel: str, cand: dict, req: dict) -> dict:
    """Gate 1, and the memcheck of the accesses it could not prove in bounds.
    A launch config is judged first (kopt.static_config): the worker pins
    it without Inductor's checks."""
    decl = next((d for d in c.decls if d.name == kernel), None)
    if cand.get("config"):
        try:
            if c.problem.kind == "helion":
                static_config.check_helion_config(cand["config"], c.configs.get(decl.var) or {} if decl else {})
            else:
                static_config.check_config(cand["config"], decl.source if decl else "")
        except static_config.Reject as e:
            return {"ok": False, "reason": str(e)}
    if not cand.get("source"):
        return {"ok": True, "reason": "config only"}
    gate = static_gate.report_helion if c.problem.kind == "helion" else static_gate.report
    r = gate(cand["source"], decl.source if decl else "")
    out = {"ok": bool(r["ok"]), "reason": str(r["reason"])}
    if r["ok"] and r["memcheck"]:
        m = memcheck.run(req, kernel, cand, r["memcheck"])
        # where the memcheck fails, its outcome first (reasons travel cut)
        both = (out["reason"], m["reason"]) if m["ok"] else (m["reason"], out["reason"])
        out.update(ok=bool(m["ok"]), reason="; ".join(both), memcheck=m)
    return out


def is_sticky(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(m in text for m in ("illegal", "launch failure", "misaligned", "device-side assert"))


class ContextLost(RuntimeError):
    """What the request ran killed the CUDA context (a sticky error: an
    illegal memory access, a device-side assert): this process can launch
    nothing more. The worker answers what it has, with "lost", and is
    replaced (PROTOCOL.md); numbers are the gates' numbers so far, where a
    verify has them."""

    def __init__(self, why: str, numbers: dict | None = None):
        super().__init__(why)
        self.numbers = numbers


def lost_reason(exc: BaseException) -> str:
    """the one line a config or candidate that killed the context fails with"""
    return f"it lost the CUDA context ({error_line(exc)[:200]}); the worker was replaced"


def measure(c: Compiled, swaps: dict, gates: dict, flush, kernel: str | None, numbers: dict,
            watch: tuple = ()) -> dict:
    """correctness, fp64 where needed, then perf; stops after a failed run
    and after a correctness failure that is certain. A sticky error raises
    ContextLost with the numbers, the candidate failing at correctness
    with the reason (it did not run, as far as the gates can know)."""
    refs = Refs(c)
    try:
        corr, fp64, failed = correctness(c, swaps, gates, refs)
    except torch.cuda.OutOfMemoryError:
        # the GPU's memory, not the candidate: the worker makes room and
        # asks again (worker.handle), else the request fails and is not
        # remembered (an out-of-memory verdict kept had stood for good)
        raise
    except Exception as exc:
        numbers["correctness"] = {"seeds": [], "error": f"{type(exc).__name__}: {exc}"[:400]}
        if is_sticky(exc):
            numbers["correctness"]["error"] = lost_reason(exc)
            raise ContextLost(lost_reason(exc), numbers) from exc
        return numbers
    prec = corr.pop("precision", None)
    numbers["correctness"] = corr
    numbers["reference"] = refs.summary()
    if prec is not None:
        numbers["precision"] = prec
    if fp64 is not None:
        numbers["fp64"] = fp64
    if not failed:
        try:
            numbers["perf"] = timing(c, swaps, gates, flush, kernel, watch)
        except Exception as exc:
            if not is_sticky(exc):
                raise
            numbers["correctness"] = {"seeds": [], "error": lost_reason(exc)}
            numbers.pop("fp64", None)
            raise ContextLost(lost_reason(exc), numbers) from exc
    return numbers


def verify(c: Compiled, req: dict, flush) -> dict:
    gates = req["gates"]
    kernel, cand = req["kernel"], req.get("candidate") or {}
    t0 = time.perf_counter()
    numbers = {"static": static_check(c, kernel, cand, req)}
    phases = {"static_s": round(time.perf_counter() - t0, 3)}
    if not numbers["static"]["ok"]:
        return {"numbers": numbers, "phases": phases}
    t0 = time.perf_counter()
    try:
        decl, obj = build_candidate(c, kernel, cand, req.get("tag") or "candidate")
    except Exception as exc:
        why = f"does not build: {type(exc).__name__}: {exc}"
        if isinstance(exc, PermissionError):
            why += " (the worker's sandbox denies the network and writes outside its scratch folder)"
        numbers["static"] = {"ok": False, "reason": why[:400]}
        return {"numbers": numbers, "phases": phases}
    phases["build_s"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    try:
        numbers = measure(c, {decl.var: obj}, gates, flush, kernel, numbers)
    except ContextLost as exc:  # the candidate's verdict stands; the worker goes
        phases["gates_s"] = round(time.perf_counter() - t0, 3)
        return {"numbers": exc.numbers, "phases": phases, "lost": str(exc)}
    phases["gates_s"] = round(time.perf_counter() - t0, 3)
    return {"numbers": numbers, "phases": phases}


def not_searched(c: Compiled, w: dict) -> str | None:
    """Why winner w's kernel, as compiled here, is not the kernel its search
    verified (the capture's, w's source_hash), or None. A change put on
    other text is not what the gates passed: the same model compiled
    differently in another worker (symbolic sizes where the capture's were
    static) had a winner land on another kernel of the same name."""
    want = w.get("source_hash")
    if not want or c.problem.kind != "torch":
        return None  # a Helion kernel's source is its own; a standalone file is what it is
    decl = next((d for d in c.decls if d.name == w["kernel"]), None)
    if decl is None or decl.hash == want:
        return None  # (a kernel not found: build_candidate says so)
    return (f"{w['kernel']} compiled here is not the kernel its search verified (source {decl.hash[:12]}, "
            f"captured {want[:12]}): this worker compiled the model otherwise")


def stitch(c: Compiled, req: dict, flush) -> dict:
    gates = req["gates"]
    swaps, code, dropped = {}, c.output_code, []
    for i, w in enumerate(req.get("winners") or []):
        why = not_searched(c, w)
        if why:  # left off, said so: the model is stitched with the rest
            dropped.append({"kernel": w["kernel"], "reason": why[:300]})
            continue
        try:
            decl, obj = build_candidate(c, w["kernel"], w["candidate"], f"stitch-{i}")
        except Exception as exc:
            if not w.get("from") or is_sticky(exc):
                raise
            # a group's change that does not fit this member (a knob that
            # does not apply, a config it cannot launch): left off, said so
            dropped.append({"kernel": w["kernel"], "reason": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        swaps[decl.var] = obj
        if w["candidate"].get("source") or w["candidate"].get("edit"):
            code = code.replace(decl.source, candidate_source(decl, w["candidate"]))
    # the winners of another shape's search: each kernel timed against the
    # one it replaces, in the same calls (koptmake leaves a slower one off)
    left = {d["kernel"] for d in dropped}
    watch = tuple(w["kernel"] for w in req.get("winners") or [] if w.get("check") and w["kernel"] not in left)
    numbers = measure(c, swaps, gates, flush, None, {}, watch)
    perf = numbers.get("perf") or {}
    watched = perf.pop("watch", None) or {}
    # no perf (the stitched model failed a gate before it): no times, not
    # zeros, which koptmake had taken for the model's time (rules/stitch.c)
    b, o = (sorted(xs)[len(xs) // 2] if xs else None for xs in (perf.get("model_base_ns"), perf.get("model_cand_ns")))
    out = {"numbers": numbers, "output_code": code, "base_ns_per_call": b, "opt_ns_per_call": o,
           "speedup": b / o if b and o else None}
    if dropped:
        out["dropped"] = dropped
    kns = {k: {"base_ns": statistics.median(v["base"]), "cand_ns": statistics.median(v["cand"])}
           for k, v in watched.items() if v["base"] and v["cand"]}
    if kns:
        out["kernel_ns"] = kns
    if c.problem.kind == "helion" and req.get("helion_baselines"):
        try:  # a figure for the report: its failure fails no stitch
            out["helion_race"] = H.race(c, swaps if "perf" in numbers else {}, req["helion_baselines"], flush)
        except Exception as exc:
            if is_sticky(exc):
                raise
            out["helion_race"] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    return out
