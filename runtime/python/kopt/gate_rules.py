"""The gates' rules the worker applies itself, each one koptmake's too.

koptmake decides (gates/); the worker measures, and applies two of the
gates' rules on its side: which tolerance an output's dtype takes (the
correctness comparison and the screen's check) and when more timing pairs
would not change gate 4's decision (the early stop of verify's timing).
Each is checked against gates/ on the same inputs by tests/lists.py
(tolerance: gates/gate.c's gate_tolerance over every dtype name its table
knows; perf-quartile: gates/perf.c's quartiles and verdicts). Plain
Python: nothing here needs torch.
"""

from __future__ import annotations

import math

# gates/gate.c's gate_dtype_parse: the names of the half types, whose
# outputs take atol_half and rtol_half, and of the exact ones (integers,
# bool), compared without a tolerance; any other takes atol and rtol
HALF = ("float16", "half", "fp16", "bfloat16", "bf16")
EXACT = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "long", "int")


def tolerance(gates: dict, dtype: str | None) -> tuple[float, float]:
    """(atol, rtol) for an output of dtype ("float32", "torch.float16"), as
    gates/gate.c's gate_tolerance gives them."""
    name = dtype.removeprefix("torch.") if dtype else dtype
    if name in HALF:
        return float(gates["atol_half"]), float(gates["rtol_half"])
    if name in EXACT:
        return 0.0, 0.0
    return float(gates["atol"]), float(gates["rtol"])


def _quantile(xs: list, q: float) -> float:
    """Linear interpolation between order statistics (gates/perf.c's)."""
    s = sorted(xs)
    pos = q * (len(s) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def perf_decided(out: dict, gamma: float, kernel: str | None) -> str | None:
    """The sequential stop of gate 4: "pass" once the lower quartile of the
    pair ratios reaches gamma (and, for a kernel, the model is not clearly
    slower), "fail" once their upper quartile is below gamma (or the model
    is clearly slower), None while it is close. The decision itself is
    koptmake's (gates/perf.c), on the pairs sent; this only says when more
    pairs would not change it."""
    mb = out["model_base_ns"]
    bd, cd = out["model_base_dev_ns"], out["model_cand_dev_ns"]
    try:
        # the candidate's host time held at its pair's baseline's (gates/gate.c)
        adj = [b - (x - y) for b, x, y in zip(mb, bd, cd)]
        rm = [b / a for b, a in zip(mb, adj)]
    except (TypeError, ZeroDivisionError):
        return None
    if any(not (r > 0) or not math.isfinite(r) for r in rm):
        return None
    if kernel is None:
        r = rm
    else:
        try:
            r = [b / c for b, c in zip(out["base_ns"], out["cand_ns"])]
        except ZeroDivisionError:
            return None
        if any(not (x > 0) or not math.isfinite(x) for x in r):
            return None
        slower = _quantile(rm, 0.75) < 1.0 and _quantile(rm, 0.5) < 1.0
        if slower:
            return "fail"
    if _quantile(r, 0.75) < gamma:
        return "fail"
    if _quantile(r, 0.25) >= gamma and (kernel is None or _quantile(rm, 0.75) >= 1.0):
        return "pass"
    return None
