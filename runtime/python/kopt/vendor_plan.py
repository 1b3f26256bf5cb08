"""Posing a recorded vendor call as a cuBLASLt or cuDNN problem, from its
arguments' metadata alone (shapes, strides, dtypes, scalars): no torch, so
the CPU tests check it. vendor.py records the calls and runs the problems.
"""

from __future__ import annotations

GEMMS = ("mm", "addmm", "bmm")
CONVS = ("convolution",)
CONV_ARGS = ("input", "weight", "bias", "stride", "padding", "dilation", "transposed", "output_padding", "groups")


def as_blas(shape, stride):
    """(trans, ld) that make a row-major [r, c] matrix X, as stored, the
    column-major operand op(M) = X^T; None if its layout is neither."""
    r, c = shape[-2:]
    sr, sc = stride[-2:]
    if sc == 1 or c == 1:
        return 0, sr if r > 1 else max(c, 1)
    if sr == 1 or r == 1:
        return 1, sc if c > 1 else max(r, 1)
    return None


def gemm_problem(op: str, args: list, kwargs: dict) -> tuple[dict | None, str | None]:
    """The cuBLASLt problem (column-major D^T = B^T A^T) for one call's
    argument metadata, or the reason it is not one we can pose."""
    if op == "addmm":
        bias, a, b = (args + [None] * 3)[:3]
        if kwargs.get("alpha", 1) != 1 or kwargs.get("beta", 1) != 1:
            return None, "addmm with alpha or beta other than 1"
    else:
        a, b = (args + [None] * 2)[:2]
        bias = None
    out = kwargs.get("out")
    if not all(isinstance(t, dict) and "tensor" in t for t in (a, b, out)):
        return None, f"{op} without tensor operands and out="
    batched = op == "bmm"
    nd = 3 if batched else 2
    if any(len(t["tensor"]) != nd for t in (a, b, out)):
        return None, f"{op} of unexpected rank"
    m, k = a["tensor"][-2:]
    n = b["tensor"][-1]
    if a["dtype"] != b["dtype"] or a["dtype"] != out["dtype"]:
        return None, "mixed dtypes"
    la, lb = as_blas(b["tensor"], b["stride"]), as_blas(a["tensor"], a["stride"])
    ostr = out["stride"]
    if la is None or lb is None or (m > 1 and ostr[-1] != 1):
        return None, "operand layout is neither row- nor column-major"
    p = {"m": n, "n": m, "k": k, "transa": la[0], "lda": la[1], "transb": lb[0], "ldb": lb[1],
         "ldc": ostr[-2] if m > 1 else n, "dtype": a["dtype"], "bias": 0}
    if batched:
        p.update(batch=a["tensor"][0], stride_a=b["stride"][0], stride_b=a["stride"][0], stride_c=ostr[0])
    if bias is not None:
        bs, bst = bias["tensor"], bias["stride"]
        vec = (len(bs) == 1 and bs[0] == n and bst[0] == 1) or \
              (len(bs) == 2 and bs[-1] == n and bst[-1] == 1 and (bs[0] == 1 or bst[0] == 0))
        if not vec:
            return None, "addmm whose bias is not a row vector"
        p["bias"] = 1
    return p, None


def conv_problem(args: list, kwargs: dict) -> tuple[dict | None, str | None]:
    a = dict(zip(CONV_ARGS, args))
    a.update(kwargs)
    x, w = a.get("input"), a.get("weight")
    if not (isinstance(x, dict) and isinstance(w, dict)):
        return None, "convolution without tensor operands"
    if a.get("transposed"):
        return None, "transposed convolution"
    if len(x["tensor"]) != 4 or len(w["tensor"]) != 4:
        return None, f"{len(x['tensor']) - 2}-d convolution (2-d only)"
    ws = w["stride"]
    k, cg, r, s = w["tensor"]
    if ws == [cg * r * s, r * s, s, 1]:
        nhwc = 0
    elif ws == [r * s * cg, 1, s * cg, cg]:
        nhwc = 1
    else:
        return None, "weight layout is neither NCHW nor NHWC"
    p = {"x": x["tensor"], "x_stride": x["stride"], "w": w["tensor"], "w_nhwc": nhwc,
         "pad": list(a.get("padding") or [0, 0]), "stride": list(a.get("stride") or [1, 1]),
         "dilation": list(a.get("dilation") or [1, 1]), "groups": int(a.get("groups") or 1), "dtype": x["dtype"]}
    if len(p["pad"]) != 2 or len(p["stride"]) != 2 or len(p["dilation"]) != 2:
        return None, "convolution arguments of unexpected length"
    return p, None


def describe(op: str, p: dict) -> str:
    if op in GEMMS:
        s = f"m={p['n']} n={p['m']} k={p['k']}"   # torch's terms (p is column-major)
        return (f"{p['batch']}x " if p.get("batch", 1) > 1 else "") + s
    n, c, h, w = p["x"]
    kk, _, r, s = p["w"]
    return (f"N={n} C={c} H={h} W={w} K={kk} {r}x{s} stride {p['stride'][0]} pad {p['pad'][0]}"
            + (f" groups {p['groups']}" if p["groups"] > 1 else ""))


def summarize(rows: list, torch_ns: float) -> dict:
    """The figures of one timed call from its algorithms' rows (in the
    heuristic's rank order; "ns" only where the algorithm ran and matched
    torch's result) and torch's own time: the heuristic's first pick's time,
    the best correct algorithm's time and rank, and the share of torch's
    time that best saves (0 when torch is faster). Empty when none ran."""
    timed = [e for e in rows if "ns" in e]
    if not timed:
        return {}
    best = min(timed, key=lambda e: e["ns"])
    return {"heuristic_ns": rows[0].get("ns"), "best_ns": best["ns"], "best_rank": best["rank"],
            "left_frac": max(0.0, (torch_ns - best["ns"]) / torch_ns) if torch_ns > 0 else 0.0}
