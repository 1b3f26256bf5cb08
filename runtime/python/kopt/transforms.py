"""kopt.transforms: kernel transforms that change the algorithm of an
Inductor kernel, where the knobs (kopt.knobs) change where values are kept
and how loops are issued.

Each is a named, pure text transform of Inductor's kernel source, generic
over a class of kernels: it applies where its preconditions hold, and says
why not (TransformError, one line) where they do not. They travel as the
knobs do, by name in an edit ("onepass=welford+rloop=reverse", kopt.knobs
joins them with its own): the screen searches them with the launch
configs, the analyst (agents/builtin/transform.c) chooses which ones from
the kernel's diagnosis, and the name goes through proposals, gates,
stitch, report, the long-term memory's skills and substitutions.json.
Standard library only: koptmake's tests run it without torch.

- ``onepass=welford|sumsq`` (one-pass statistics): a looped reduction
  whose statistics read its row twice, a first loop summing x and a later
  loop summing (x - sum / n)^2 and doing nothing else (a norm whose
  variance is written out, ``((x - x.mean()) ** 2).mean()``), gets the
  second sum in the first loop and loses the second loop: Welford's
  running mean and sum of squared deviations (triton_helpers.welford_reduce,
  Inductor's own helper), or the sum of squares, with the centred sum
  sum(x^2) - sum(x)^2 / n (cheaper; it loses digits where the mean is
  large against the spread, which gates 2 and 3 judge). The first loop's
  sum stays as it was, so everything else computes from the same values.
  (Inductor's own var_mean is Welford in one loop already.)
- ``rloop=reverse`` (loop order): the row loops after the first, where
  they carry nothing from one block to the next (a norm's or a softmax's
  normalising loop: loads, math, stores), walk the row from its end. The
  first loop has just read the row from its start; where the rows in
  flight do not fit in L2, the blocks it read last are the likeliest to be
  there still, and a second loop that starts with them reads them from L2,
  not from memory (with ``grid=G``, fewer rows in flight). The same blocks
  are computed, one per iteration, each with the masks it had.
"""

from __future__ import annotations

import re

KINDS = ("onepass", "rloop")
VALUES = {"onepass": ("welford", "sumsq"), "rloop": ("reverse",)}
# the transforms' version: bump when a transform's text changes for the
# same kernel (agents/builtin/transform.h AGENT_TRANSFORMS_VERSION, checked
# by tests/lists.py; it is part of the screen's and the proposals' keys)
VERSION = 1

ROW_LOOP = re.compile(r"^(?P<ind> {4})for r0_offset in (?P<rng>(?:tl\.)?range\(0, r0_numel, R0_BLOCK[^)]*\)):$")
ASSIGN = re.compile(r"^\s+(?P<lhs>[\w, ]+?) = (?P<rhs>.+)$")
ACCUM = re.compile(r"^(?P<acc>_\w+) = tl\.where\(r0_mask, (?P<next>\w+), (?P=acc)\)$")
NAME = re.compile(r"\b[A-Za-z_]\w*\b")
# lines Inductor writes at the top of every row loop: the block's indices
INDEX_LINES = re.compile(r"^(r0_index = r0_offset \+ r0_base|r0_mask = r0_index < r0_numel|roffset = r0_offset|"
                         r"rindex = r0_index|r0_\d+ = r0_index)$")


class TransformError(ValueError):
    """A transform that does not apply to this source, and why."""


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip(" "))


def row_loops(lines: list[str]) -> list[tuple[int, int]]:
    """The kernel's top-level row loops: (header line, end) with the body
    lines[header + 1:end]."""
    out = []
    for i, s in enumerate(lines):
        if ROW_LOOP.match(s):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() and _indent(lines[j]) <= 4),
                       len(lines))
            out.append((i, end))
    return out


def _looped(src: str) -> int:
    """The kernel's static row length; TransformError where it is not a
    looped reduction over one axis of static length."""
    if "@triton_heuristics.reduction(" not in src or "r1_" in src:
        raise TransformError("not a looped reduction over one axis")
    m = re.search(r"^    r0_numel = (\d+)$", src, re.M)
    if not m:
        raise TransformError("the row's length is not static")
    return int(m[1])


def _assigns(body: list[str]) -> list[tuple[list[str], str]]:
    """The body's assignments in order: (targets, right-hand side); a
    multi-line call joined to its line."""
    out, pending = [], None
    for s in body:
        t = s.strip()
        if not t:
            continue
        if pending is not None:
            pending[1] += t
            if pending[1].count("(") == pending[1].count(")"):
                out.append((pending[0], pending[1]))
                pending = None
            continue
        m = ASSIGN.match(s)
        if m:
            lhs = [x.strip() for x in m["lhs"].split(",")]
            if m["rhs"].count("(") != m["rhs"].count(")"):
                pending = [lhs, m["rhs"]]
            else:
                out.append((lhs, m["rhs"]))
        else:
            out.append(([], t))
    return out


def _carried(body: list[str]) -> bool:
    """Whether the loop carries a value from one block to the next: a name
    it assigns that it reads before assigning it (in its body's order)."""
    assigns = _assigns(body)
    mine = {n for lhs, _ in assigns for n in lhs}
    seen: set = set()
    for lhs, rhs in assigns:
        if (set(NAME.findall(rhs)) & mine) - seen:
            return True
        seen.update(lhs)
    return False


def _load_key(rhs: str) -> str | None:
    """A load's address and mask without its cache hints, or None."""
    m = re.match(r"tl\.load\((.*)\)(\.to\(tl\.\w+\))?$", rhs)
    if not m:
        return None
    return re.sub(r", (?:eviction_policy|cache_modifier)='[^']*'", "", m[1])


def _loads(body: list[str]) -> set[str]:
    return {k for _, rhs in _assigns(body) if (k := _load_key(rhs))}


# ---- rloop=reverse ----

def rloop(src: str) -> str:
    """The row loops after the first, those that carry nothing across
    blocks and read what an earlier loop read, walking the row from its
    end."""
    _looped(src)
    lines = src.split("\n")
    loops = row_loops(lines)
    if len(loops) < 2:
        raise TransformError("rloop: one row loop, nothing read again")
    first = _loads(lines[loops[0][0] + 1:loops[0][1]])
    picked = []
    for h, e in loops[1:]:
        body = lines[h + 1:e]
        if "tl.atomic" in "\n".join(body) or _carried(body):
            continue
        if _loads(body) & first:
            picked.append(h)
    if not picked:
        raise TransformError("rloop: no later row loop that carries nothing and reads the row again")
    for h in reversed(picked):
        m = ROW_LOOP.match(lines[h])
        rng = m["rng"] if m["rng"].startswith("tl.") else "tl." + m["rng"]
        lines[h:h + 1] = [f"    for kopt_r0_offset in {rng}:",
                          "        r0_offset = (r0_numel - 1) // R0_BLOCK * R0_BLOCK - kopt_r0_offset"]
    return "\n".join(lines)


# ---- onepass=welford|sumsq ----

def _defs(lines: list[str]) -> dict:
    """name -> right-hand side, of the kernel's single-target assignments
    (the last one wins; Inductor assigns each tmp once)."""
    out = {}
    for lhs, rhs in _assigns(lines):
        if len(lhs) == 1:
            out[lhs[0]] = rhs
    return out


def _strip(defs: dict, v: str) -> str:
    """v through broadcasts and casts to float32: the value it stands for."""
    for _ in range(8):
        rhs = defs.get(v, "")
        m = re.fullmatch(r"tl\.broadcast_to\((\w+), \[XBLOCK, R0_BLOCK\]\)|(\w+)\.to\(tl\.float32\)", rhs)
        if not m:
            return v
        v = m[1] or m[2]
    return v


def _sum_acc(body: list[str]) -> list[tuple[str, str]]:
    """The loop's sum accumulators: (accumulator, the summed value)."""
    defs = _defs(body)
    out = []
    for lhs, rhs in _assigns(body):
        m = ACCUM.match(f"{lhs[0]} = {rhs}") if len(lhs) == 1 else None
        if not m:
            continue
        nxt = defs.get(m["next"], "")
        s = re.fullmatch(rf"{re.escape(m['acc'])} \+ (\w+)", nxt)
        if s:
            out.append((m["acc"], s[1]))
    return out


def _after(lines: list[str], at: int, acc: str) -> int | None:
    """The line after a loop that reduces acc: "tmpN = tl.sum(acc, 1)[:, None]"."""
    pat = re.compile(rf"^    \w+ = tl\.sum\({re.escape(acc)}, 1\)\[:, None\]$")
    for j in range(at, len(lines)):
        if pat.match(lines[j]):
            return j
        if ROW_LOOP.match(lines[j]):
            return None
    return None


def _is_n(defs: dict, v: str, n: int) -> bool:
    rhs = defs.get(v, v)
    m = re.fullmatch(r"tl\.full\(\[1, 1\], ([\d.e+]+), tl\.float32\)|([\d.e+]+)", rhs)
    try:
        return bool(m) and float(m[1] or m[2]) == float(n)
    except ValueError:
        return False


def _centred_square(defs: dict, v: str, n: int) -> tuple[str, str] | None:
    """(the load, the sum) where v is (x - sum / n)^2 with x a load: the
    value's load variable and the name of the sum it is centred on."""
    sq = re.fullmatch(r"(\w+) \* (\w+)", defs.get(_strip(defs, v), ""))
    if not sq or sq[1] != sq[2]:
        return None
    d = re.fullmatch(r"(\w+) - (\w+)", defs.get(sq[1], ""))
    if not d:
        return None
    x, mean = _strip(defs, d[1]), defs.get(d[2], "")
    m = re.fullmatch(r"\((\w+) / (\w+)\)|(\w+) / ([\d.e+]+)", mean)
    if not m or not _load_key(defs.get(x, "")):
        return None
    s, c = (m[1], m[2]) if m[1] else (m[3], m[4])
    return (x, s) if _is_n(defs, c, n) else None


def onepass(src: str, how: str) -> str:
    """The statistics' second loop folded into the first (how: "welford"
    or "sumsq")."""
    if how not in VALUES["onepass"]:
        raise TransformError(f"onepass={how}: welford or sumsq")
    n = _looped(src)
    lines = src.split("\n")
    loops = row_loops(lines)
    if len(loops) < 2:
        raise TransformError("onepass: one row loop, no second pass of statistics")
    alldefs = _defs(lines)
    for bi in range(1, len(loops)):
        bh, be = loops[bi]
        body = lines[bh + 1:be]
        accs = _sum_acc(body)
        defs = {**alldefs, **_defs(body)}
        if len(accs) != 1:
            continue
        acc_q, val = accs[0]
        cs = _centred_square(defs, val, n)
        if not cs:
            continue
        x, total = cs
        # the sum it is centred on: a first loop's accumulator of the same load
        for ai in range(bi):
            ah, ae = loops[ai]
            abody = lines[ah + 1:ae]
            adefs = {**alldefs, **_defs(abody)}
            for acc_s, sval in _sum_acc(abody):
                red = _after(lines, ae, acc_s)
                if red is None or not lines[red].strip().startswith(f"{total} = "):
                    continue
                if _load_key(adefs.get(_strip(adefs, sval), "")) != _load_key(defs[x]):
                    continue
                return _fold(lines, (ah, ae), red, (bh, be), acc_q, sval, total, n, how)
    raise TransformError("onepass: no later row loop that only sums (x - sum(x) / n)^2 over a row an earlier "
                         "loop sums")


def _fold(lines: list[str], a: tuple, red: int, b: tuple, acc_q: str, sval: str, total: str, n: int,
          how: str) -> str:
    """The text with loop b's sum computed in loop a (its accumulator
    reduced at red), loop b and its own reduction gone."""
    bh, be = b
    body = lines[bh + 1:be]
    used_after = set(NAME.findall("\n".join(lines[be:])))
    own = {t for lhs, _ in _assigns(body) for t in lhs} - {acc_q}
    if "tl.store" in "\n".join(body) or own & used_after - {"r0_offset", "r0_index", "r0_mask", "roffset",
                                                             "rindex"} - {t for t in own if re.fullmatch(r"r0_\d+", t)}:
        raise TransformError("onepass: the second loop does more than the centred sum")
    qred = _after(lines, be, acc_q)
    if qred is None:
        raise TransformError("onepass: the centred sum is not reduced after its loop")
    q = lines[qred].strip().split(" = ")[0]
    ah, ae = a
    acc_line = next(i for i in range(ah + 1, ae) if re.match(r"^\s+_\w+ = tl\.where\(r0_mask, ", lines[i]) and
                    lines[i].strip().startswith(_first_acc(lines, ah, ae, sval) + " = "))
    ind = " " * _indent(lines[acc_line])
    if how == "welford":
        init = ["    _kopt_m2_mean = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)",
                "    _kopt_m2 = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)",
                "    _kopt_m2_weight = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)"]
        step = [f"{ind}kopt_m2_mean_next, kopt_m2_next, kopt_m2_weight_next = triton_helpers.welford_reduce(",
                f"{ind}    {sval}, _kopt_m2_mean, _kopt_m2, _kopt_m2_weight, roffset == 0",
                f"{ind})",
                f"{ind}_kopt_m2_mean = tl.where(r0_mask, kopt_m2_mean_next, _kopt_m2_mean)",
                f"{ind}_kopt_m2 = tl.where(r0_mask, kopt_m2_next, _kopt_m2)",
                f"{ind}_kopt_m2_weight = tl.where(r0_mask, kopt_m2_weight_next, _kopt_m2_weight)"]
        done = ["    kopt_m2_mean_r, kopt_m2_r, kopt_m2_weight_r = triton_helpers.welford(_kopt_m2_mean, _kopt_m2, "
                "_kopt_m2_weight, 1)"]
        fold = [f"    {q} = kopt_m2_r[:, None]"]
    else:
        init = ["    _kopt_sq = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)"]
        step = [f"{ind}kopt_sq_next = _kopt_sq + {sval} * {sval}",
                f"{ind}_kopt_sq = tl.where(r0_mask, kopt_sq_next, _kopt_sq)"]
        done = ["    kopt_sq_r = tl.sum(_kopt_sq, 1)[:, None]"]
        fold = [f"    {q} = kopt_sq_r - {total} * ({total} / {float(n)!r})"]
    # the centred sum's accumulator, made between the loops: gone with them
    init_q = next((i for i in range(red + 1, bh) if lines[i].startswith(f"    {acc_q} = tl.full(")), None)
    # from the end, so that earlier indices hold
    out = list(lines)
    out[qred:qred + 1] = fold
    del out[bh:be]
    if init_q is not None:
        del out[init_q]
    out[red + 1:red + 1] = done
    out[acc_line + 1:acc_line + 1] = step
    out[ah:ah] = init
    return "\n".join(out)


def _first_acc(lines: list[str], ah: int, ae: int, sval: str) -> str:
    for acc, v in _sum_acc(lines[ah + 1:ae]):
        if v == sval:
            return acc
    raise TransformError("onepass: the first loop's sum is not an accumulator")


# ---- the registry ----

def apply(src: str, kind: str, value: str) -> str:
    """src with transform kind=value; TransformError where it does not apply."""
    if kind == "onepass":
        return onepass(src, value)
    if kind == "rloop":
        if value != "reverse":
            raise TransformError(f"rloop={value}: reverse or left out")
        return rloop(src)
    raise TransformError(f"unknown transform {kind}")


def applies(src: str, kinds=KINDS) -> tuple[dict, dict]:
    """({kind: [values that apply]}, {kind: why not}) for the transforms
    kinds on src."""
    ok, why = {}, {}
    for k in kinds:
        vals = []
        for v in VALUES.get(k, ()):
            try:
                apply(src, k, v)
                vals.append(v)
            except TransformError as e:
                why[k] = str(e)
        if vals:
            ok[k] = vals
            why.pop(k, None)
        elif k not in VALUES:
            why[k] = f"unknown transform {k}"
    return ok, why
