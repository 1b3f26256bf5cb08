"""Source knobs: named edits of an Inductor Triton kernel that screening
searches together with its launch keys.

A launch config moves XBLOCK, R0_BLOCK, num_warps and num_stages; what the
kernel does with each load and loop is in its source. A knob is one such
choice, written as a pure text transform of Inductor's kernel source, with
a name: the name travels with the config through the screen, the proposal,
the four gates, the stitch, the report's strategy column, the long-term
memory and substitutions.json, and ``apply(source, edit)`` gives the same
text wherever it runs (the screen, the deployment). Standard library only:
koptmake's tests run it without torch.

Knobs, each ``NAME=VALUE``; an edit is a set of them joined by ``+`` in a
fixed order ("evict1=first+cache0=cg+rstages=2"); the empty edit is
Inductor's own source:

- ``evictI=first|last|none``: the eviction policy of the kernel's I-th
  ``tl.load`` (in source order): ``evict_first`` (streamed once),
  ``evict_last`` (kept in L2 for a later read) or none (the hint dropped);
- ``cacheI=ca|cg|cv``: the I-th load's cache modifier (Triton 3.6 accepts
  ``.ca``, ``.cg`` and ``.cv`` on loads for NVIDIA targets): cache at all
  levels, in L2 only, or fetch again;
- ``rstages=K`` and ``runroll=U``: every loop of a looped reduction over
  its row blocks (``for r0_offset in tl.range(0, r0_numel, R0_BLOCK)``, or
  ``range``) pipelined K deep (``tl.range(..., num_stages=K)``: loads of
  the next blocks issued while this one is reduced) and unrolled U times
  (``loop_unroll_factor=U``);
- ``persist=on``: a looped reduction that reads its row twice (a softmax,
  a norm) made persistent under a compile-time branch, as the coder's
  "persistent" edit does (agents/builtin/persist.c, of which this is the
  same transform): ``if R0_BLOCK >= r0_numel:`` the loops' bodies once at
  r0_offset = 0, a later load of the same address a copy of the first,
  ``else:`` Inductor's loops as they were. It acts only under a config whose
  R0_BLOCK covers the row, which the screen sets with it (persist_config);
- ``BLOCK_M=``, ``BLOCK_N=``, ``BLOCK_K=``, ``GROUP_M=``: a GEMM template's
  (triton_tem_*) tile, set in its body as constexprs. The wrapper launches
  the template on a grid worked out from Inductor's tile, so a new BLOCK_M
  or BLOCK_N comes with a loop over the tiles (``for pid in
  tl.range(tl.program_id(0), grid_m * grid_n, tl.num_programs(0))``): each
  program takes every num_programs-th tile, which covers them all whatever
  the grid, and is Inductor's kernel again under Inductor's tile. BLOCK_K
  moves only where it divides a static K (EVEN_K: the loads of A and B are
  not masked along K). num_warps and num_stages stay launch keys.

- ``grid=G``: a persistent grid for a kernel on a one-dimensional grid
  (Inductor's Grid1D: its pointwise kernels and reductions): the first G
  programs loop over the tiles (``for kopt_tile in range(kopt_pid,
  tl.cdiv(xnumel, XBLOCK), G)``), the body inside with ``xoffset`` at the
  tile, and the other programs of Inductor's grid, which the wrapper still
  launches, take none. Every tile is still taken once, by one program. At
  most G tiles are in flight: where a reduction reads its rows twice and
  the rows of the whole grid do not fit in L2, G rows that do fit turn the
  second read into L2 hits (the norms' looped kernels). G comes as a
  multiple of the device's SMs (space's sms), written out as a number.

- ``onepass=welford|sumsq`` and ``rloop=reverse``: the transforms that
  change a kernel's algorithm (kopt.transforms says what each does and
  where it applies), named and searched as the knobs are, in the space
  only where the analyst asks for them (the screen request's
  "transforms") and their preconditions hold.

``maxnreg`` is a knob too, but a compile option rather than an edit: it is
a key of the launch config (``triton.Config(..., maxnreg=N)``, see
kernels.force_config), searched with the others.

None of these knobs changes what the kernel computes: an eviction hint or a
cache modifier changes where a value is kept, not the value; a pipelined or
unrolled loop runs the same iterations in the same order. Each keeps the
signature, the decorator and every mask (gate 1, kopt.static_gate). The
transforms compute the same values another way (a sum of squares in
another order, a row's blocks in another order), which the gates judge.
"""

from __future__ import annotations

import re

from . import transforms as T

EVICT = {"first": "evict_first", "last": "evict_last", "none": None}
PERSIST_MAX = 16384  # a row of 64 KiB of float32 in registers (agents/builtin/persist.h PERSIST_MAX_RBLOCK)
CACHE = {"ca": ".ca", "cg": ".cg", "cv": ".cv"}
RSTAGES = (1, 2, 3, 4)
RUNROLL = (1, 2, 4)

# "    tmp0 = tl.load(ARGS)" and what follows it on the line (".to(tl.float32)")
LOAD = re.compile(r"tl\.load\(")
LOOP = re.compile(r"^(?P<ind>\s+)for r0_offset in (?:tl\.)?range\(0, r0_numel, R0_BLOCK(?P<kw>[^)]*)\):$", re.M)
KNOB = re.compile(r"^(?:(?P<kind>evict|cache)(?P<i>\d+)|(?P<loop>rstages|runroll)|(?P<persist>persist)|"
                  r"(?P<grid>grid)|(?P<transform>" + "|".join(T.KINDS) + r")|"
                  r"(?P<tile>BLOCK_M|BLOCK_N|BLOCK_K|GROUP_M))=(?P<v>\w+)$")
KIND_ORDER = ("evict", "cache", "rstages", "runroll") + T.KINDS + ("persist", "grid")
TILE = {"BLOCK_M": (16, 32, 64, 128, 256), "BLOCK_N": (16, 32, 64, 128, 256), "BLOCK_K": (16, 32, 64, 128),
        "GROUP_M": (1, 4, 8, 16)}
LADDERS = ("rstages", "runroll", "grid") + tuple(TILE)  # knobs moved one step at a time
GRID_TIMES = (1, 2, 4, 8)  # grid=G: G this many times the device's SMs
GRID_MAX = 1 << 16
TILE_LINE = re.compile(r"^    (?P<k>BLOCK_M|BLOCK_N|BLOCK_K|GROUP_M) : tl\.constexpr = (?P<v>\d+)$", re.M)


class KnobError(ValueError):
    """An edit that does not apply to this source (no such load, no loop,
    an unknown knob or value)."""


def _call_end(src: str, open_at: int) -> int:
    """The index just past the ``)`` closing the call whose ``(`` is at
    open_at; strings and nested brackets skipped."""
    depth, i, quote = 0, open_at, None
    while i < len(src):
        c = src[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise KnobError("an unbalanced tl.load call")


def _split_args(inner: str) -> list[str]:
    """The top-level comma-separated arguments of a call's text."""
    out, depth, quote, cur = [], 0, None, ""
    for c in inner:
        if quote:
            cur += c
            if c == quote:
                quote = None
            continue
        if c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def loads(src: str) -> list[tuple[int, int]]:
    """Each ``tl.load(...)`` call of the source: (start, end) of its text."""
    out = []
    for m in LOAD.finditer(src):
        out.append((m.start(), _call_end(src, m.end() - 1)))
    return out


def _keyword(args: list[str], key: str) -> str | None:
    for a in args:
        if a.startswith(key + "="):
            return a[len(key) + 1:]
    return None


def load_knobs(call: str) -> dict:
    """A load's own settings, as Inductor wrote them: {"evict": first|last|
    none, "cache": ""|ca|cg|cv}."""
    args = _split_args(call[len("tl.load("):-1])
    ev = _keyword(args, "eviction_policy")
    cm = _keyword(args, "cache_modifier")
    evict = {"'evict_first'": "first", "'evict_last'": "last"}.get(ev or "", "none")
    cache = (cm or "").strip("'\"").lstrip(".")
    return {"evict": evict, "cache": cache}


def _set_keyword(call: str, key: str, value: str | None) -> str:
    """The load call with keyword key set to value (a Python literal's
    text), or dropped when value is None; a new keyword goes last."""
    args = _split_args(call[len("tl.load("):-1])
    kept = [a for a in args if not a.startswith(key + "=")]
    if value is not None:
        at = next((i for i, a in enumerate(args) if a.startswith(key + "=")), None)
        if at is None:
            kept.append(f"{key}={value}")
        else:
            kept.insert(at, f"{key}={value}")
    return "tl.load(" + ", ".join(kept) + ")"


def parse(edit: str) -> dict:
    """An edit's knobs, {name: value}; "" is none."""
    out: dict = {}
    for part in filter(None, (edit or "").split("+")):
        m = KNOB.match(part)
        if not m:
            raise KnobError(f"unknown knob {part!r}")
        v = m["v"]
        if m["kind"] == "evict" and v not in EVICT:
            raise KnobError(f"{part}: the eviction policy is first, last or none")
        if m["kind"] == "cache" and v not in CACHE:
            raise KnobError(f"{part}: the cache modifier is ca, cg or cv")
        if m["persist"] and v != "on":
            raise KnobError(f"{part}: persist is on or left out")
        if m["transform"] and v not in T.VALUES[m["transform"]]:
            raise KnobError(f"{part}: not one of {T.VALUES[m['transform']]}")
        if m["grid"]:
            if not v.isdigit() or not 1 <= int(v) <= GRID_MAX:
                raise KnobError(f"{part}: a number of programs from 1 to {GRID_MAX}")
            v = int(v)
        if m["tile"]:
            if not v.isdigit() or int(v) not in TILE[m["tile"]]:
                raise KnobError(f"{part}: not one of {TILE[m['tile']]}")
            v = int(v)
        if m["loop"]:
            if not v.isdigit() or int(v) not in (RSTAGES if m["loop"] == "rstages" else RUNROLL):
                raise KnobError(f"{part}: not one of {RSTAGES if m['loop'] == 'rstages' else RUNROLL}")
            v = int(v)
        name = part.split("=")[0]
        if name in out:
            raise KnobError(f"knob {name} set twice")
        out[name] = v
    return out


def _order(name: str) -> tuple:
    m = re.match(r"(" + "|".join(KIND_ORDER) + r")(\d*)$", name)
    if name in TILE:
        return (len(KIND_ORDER), list(TILE).index(name), name)
    return (KIND_ORDER.index(m[1]) if m else 99, int(m[2]) if m and m[2] else 0, name)


def name(knobs: dict) -> str:
    """The canonical text of a set of knobs: "" for none."""
    return "+".join(f"{k}={knobs[k]}" for k in sorted(knobs, key=_order))


def kinds(edit: str) -> list[str]:
    """The kinds of knob an edit sets, in order: ["evict", "rstages"]."""
    out: list[str] = []
    for k in sorted(parse(edit), key=_order):
        kind = "tile" if k in TILE else re.match(r"[a-z]+", k)[0]
        if kind not in out:
            out.append(kind)
    return out


def apply(src: str, edit: str) -> str:
    """Inductor's kernel source with the edit's knobs set; the source
    itself for the empty edit. KnobError when a knob does not apply."""
    knobs = parse(edit)
    if not knobs:
        return src
    calls = loads(src)
    per_load: dict = {}
    for k, v in knobs.items():
        m = KNOB.match(f"{k}={v}")
        if m["kind"]:
            i = int(m["i"])
            if i >= len(calls):
                raise KnobError(f"{k}: the kernel has {len(calls)} loads")
            per_load.setdefault(i, {})[m["kind"]] = v
    out = src
    for i in sorted(per_load, reverse=True):  # from the end: earlier offsets hold
        a, b = calls[i]
        call = out[a:b]
        if "evict" in per_load[i]:
            pol = EVICT[per_load[i]["evict"]]
            call = _set_keyword(call, "eviction_policy", f"'{pol}'" if pol else None)
        if "cache" in per_load[i]:
            call = _set_keyword(call, "cache_modifier", f"'{CACHE[per_load[i]['cache']]}'")
        own = load_knobs(call)
        if not allowed({f"cache{i}": own["cache"], f"evict{i}": own["evict"]}):
            raise KnobError(f"load {i}: the cache modifier {own['cache']} with eviction policy "
                            f"evict_{own['evict']} does not compile")
        out = out[:a] + call + out[b:]
    loop_kw = []
    if "rstages" in knobs:
        loop_kw.append(f"num_stages={knobs['rstages']}")
    if "runroll" in knobs:
        loop_kw.append(f"loop_unroll_factor={knobs['runroll']}")
    if loop_kw:
        if not LOOP.search(out):
            raise KnobError("rstages/runroll: the kernel has no loop over its row blocks")
        for m in LOOP.finditer(out):
            if m["kw"].strip():
                raise KnobError("rstages/runroll: the row loop sets its own keywords")

        def loop(m: re.Match) -> str:
            return f"{m['ind']}for r0_offset in tl.range(0, r0_numel, R0_BLOCK, {', '.join(loop_kw)}):"

        out = LOOP.sub(loop, out)
    if not allowed(knobs):
        raise KnobError("rloop with persist: the persistent branch has no loop to walk back")
    for kind in T.KINDS:  # after the loops' keywords (kept), before persist
        if kind in knobs:
            try:
                out = T.apply(out, kind, knobs[kind])
            except T.TransformError as e:
                raise KnobError(str(e)) from None
    if "persist" in knobs:  # last: both branches get the loads' and loops' knobs
        out = persist(out)[0]
    tiles = {k: v for k, v in knobs.items() if k in TILE}
    if tiles:
        out = tile(out, tiles)
    if "grid" in knobs:  # last: the whole body, whatever the others did to it, in the loop
        out = grid(out, knobs["grid"])
    return out


# ---- grid=G: a persistent grid ----

XOFFSET = re.compile(r"^    xoffset = tl\.program_id\(0\)(?P<cast>\.to\(tl\.int64\))? \* XBLOCK$", re.M)


def candidate_text(own: str, cand: dict) -> str:
    """A candidate's kernel text, for a kernel whose own text is own: the
    candidate's source; a group's change put on another kernel of the
    group (rules/groups.c: no source, the searched kernel's source knobs in
    "edit"), those knobs applied to own, which gives each kernel its own
    text (as deploy.py does; KnobError where they do not apply); else own,
    launched at the candidate's config."""
    if cand.get("source"):
        return cand["source"]
    if cand.get("edit"):
        return apply(own, cand["edit"])
    return own


def _grid_site(src: str) -> re.Match:
    """The xoffset line of a kernel on a one-dimensional grid; KnobError
    where the kernel is not one (a template, a two-dimensional grid, a
    loop over programs of its own)."""
    if "'grid_type': 'Grid1D'" not in src or "@triton_heuristics.template(" in src:
        raise KnobError("grid: not a kernel on a one-dimensional grid")
    if re.search(r"tl\.program_id\([12]\)|num_programs|kopt_tile", src):
        raise KnobError("grid: the kernel has more than one program axis, or loops over programs already")
    sites = list(XOFFSET.finditer(src))
    if len(sites) != 1 or src.count("tl.program_id(0)") != 1:
        raise KnobError("grid: no single xoffset = tl.program_id(0) * XBLOCK")
    return sites[0]


def grid(src: str, g: int) -> str:
    """The kernel with its first g programs looping over the tiles, the rest
    taking none (the body from xoffset on in the loop)."""
    m = _grid_site(src)
    lines = src.split("\n")
    at = lines.index(m[0])
    end = next((i for i in range(at + 1, len(lines)) if lines[i].strip() and _indent(lines[i]) == 0), len(lines))
    head = ["    kopt_pid = tl.program_id(0)",
            f"    if kopt_pid < {g}:",
            f"        for kopt_tile in range(kopt_pid, tl.cdiv(xnumel, XBLOCK), {g}):",
            f"            xoffset = kopt_tile{m['cast'] or ''} * XBLOCK"]
    body = ["" if not s.strip() else "        " + s for s in lines[at + 1:end]]
    return "\n".join(lines[:at] + head + body + lines[end:])


def _static_xnumel(src: str) -> int | None:
    m = re.search(r"^    xnumel = (\d+)$", src, re.M)
    return int(m[1]) if m else None


# ---- a GEMM template's tile ----

def template_tile(src: str) -> dict:
    """A GEMM template's constexpr tile, {"BLOCK_M": 64, ...}; {} where the
    source is not one whose tiles this can move (a template of another
    shape: a convolution's two-dimensional grid, say)."""
    if "@triton_heuristics.template(" not in src or "\n    pid = tl.program_id(0)\n" not in src:
        return {}
    if not re.search(r"^    grid_m = .*\n    grid_n = .*$", src, re.M):
        return {}
    return {m["k"]: int(m["v"]) for m in TILE_LINE.finditer(src)}


def _static_k(src: str) -> int | None:
    m = re.search(r"^    K = (\d+)$", src, re.M)
    return int(m[1]) if m else None


def tile(src: str, tiles: dict) -> str:
    """The template with its tile set, and the loop over tiles where BLOCK_M
    or BLOCK_N moves."""
    own = template_tile(src)
    for k in tiles:
        if k not in own:
            raise KnobError(f"{k}: not a GEMM template with that constexpr")
    if "BLOCK_K" in tiles and tiles["BLOCK_K"] != own["BLOCK_K"]:
        kk = _static_k(src)
        even = re.search(r"^    EVEN_K : tl\.constexpr = True$", src, re.M)
        if even and (kk is None or kk % tiles["BLOCK_K"]):
            raise KnobError(f"BLOCK_K={tiles['BLOCK_K']}: K is not a static multiple of it (EVEN_K)")
    out = TILE_LINE.sub(lambda m: f"    {m['k']} : tl.constexpr = {tiles.get(m['k'], m['v'])}", src)
    if tiles.get("BLOCK_M", own["BLOCK_M"]) == own["BLOCK_M"] and tiles.get("BLOCK_N", own["BLOCK_N"]) == own["BLOCK_N"]:
        return out
    lines = out.split("\n")
    at = lines.index("    pid = tl.program_id(0)")
    gn = next(i for i in range(at, len(lines)) if lines[i].startswith("    grid_n = "))
    end = next((i for i in range(gn + 1, len(lines)) if lines[i].strip() and not lines[i].startswith(" ")), len(lines))
    body = ["" if not s.strip() else "    " + s for s in lines[gn + 1:end]]
    loop = "    for pid in tl.range(tl.program_id(0), grid_m * grid_n, tl.num_programs(0)):"
    return "\n".join(lines[:at] + lines[at + 1:gn + 1] + [loop] + body + lines[end:])


# ---- persist=on: agents/builtin/persist.c's transform, line for line ----

ROW_LOOP = re.compile(r"^    for r0_offset in (?:tl\.)?range\(0, r0_numel, R0_BLOCK[\w ,=]*\):$")


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip(" "))


def _load_key(line: str):
    """(var, args without eviction hint or cache modifier, pointer) of a
    "var = tl.load(ARGS)" line, or None."""
    p = line.lstrip(" ")
    eq = p.find(" = tl.load(")
    if eq < 0 or not re.fullmatch(r"\w+", p[:eq]):
        return None
    a = p[eq + len(" = tl.load("):]
    if not a.endswith(")"):
        return None
    args = re.sub(r", (?:eviction_policy|cache_modifier)='[^']*'", "", a[:-1])
    return p[:eq], args, re.split(r"[ +,)\[]", a, maxsplit=1)[0]


def persist(src: str) -> tuple[str, int]:
    """(the persistent text, the R0_BLOCK it needs); KnobError where the
    kernel is not a looped reduction over one static row of at most
    PERSIST_MAX elements read twice."""
    if "r1_" in src or "@triton_heuristics.persistent_reduction" in src:
        raise KnobError("persist: not a looped reduction over one axis")
    lines = src.split("\n")
    numel, nloops = -1, 0
    for s in lines:
        m = re.fullmatch(r"    r0_numel = (\d+)", s)
        if m and numel < 0 and int(m[1]) > 0:
            numel = int(m[1])
        if ROW_LOOP.match(s):
            nloops += 1
        elif "for " in s and _indent(s) > 4 and " in " in s:
            nloops += 1000
    rb = 1
    while 0 < numel and rb < numel:
        rb *= 2
    if numel < 0 or nloops < 2 or nloops >= 1000 or rb > PERSIST_MAX:
        raise KnobError("persist: no static row of at most %d read in two loops" % PERSIST_MAX)
    first = next(i for i, s in enumerate(lines) if ROW_LOOP.match(s))
    end = next((i for i in range(first + 1, len(lines)) if lines[i].strip() and _indent(lines[i]) == 0), len(lines))
    out = lines[:first] + [f"    if R0_BLOCK >= {numel}:"]
    frm, in_loop = len(out), False
    for s in lines[first:end]:
        if ROW_LOOP.match(s):
            out.append("        r0_offset = 0")
            in_loop = True
            continue
        if in_loop and s.strip() and _indent(s) < 8:
            in_loop = False
        out.append("" if not s.strip() else s if in_loop else "    " + s)
    to = len(out)
    out.append("    else:")
    out += ["" if not s.strip() else "    " + s for s in lines[first:end]]
    out += lines[end:]
    seen: list = []  # [var, args, ptr or None]
    reused = 0
    for i in range(to):
        if i == frm - 1:
            continue
        line = out[i]
        st = line.find("tl.store(")
        if st >= 0:
            ptr = re.split(r"[ +,)\[]", line[st + len("tl.store("):], maxsplit=1)[0]
            for e in seen:
                if e[2] == ptr:
                    e[2] = None  # written: no longer a copy of memory
            continue
        k = _load_key(line)
        if not k:
            continue
        prev = next((e for e in seen if e[2] is not None and e[1] == k[1]), None)
        if prev:
            out[i] = " " * _indent(line) + f"{k[0]} = {prev[0]}"
            reused += 1
            continue
        seen.append(list(k))
    if not reused:
        raise KnobError("persist: nothing read twice, nothing to gain")
    return "\n".join(out), rb


def persist_config(src: str, config: dict) -> dict:
    """The launch config persist=on acts under, from config: one row per
    program, R0_BLOCK the row (a power of two), warps by its length, one
    stage (persist.c's coder sets the same)."""
    rb = persist(src)[1]
    c = dict(config)
    c.update(XBLOCK=1, R0_BLOCK=rb, num_warps=16 if rb >= 8192 else 8 if rb >= 2048 else 4, num_stages=1)
    return c


def space(src: str, sms: int = 0, transforms=()) -> dict:
    """The knobs that apply to a kernel and their values, Inductor's first:
    {"evict0": ["last", "first", "none"], "cache0": ["", "ca", "cg", "cv"],
    "rstages": [0, 1, 2, 3, 4], ...} (0: the keyword unset). A value equal to Inductor's first one is
    the knob left alone (not part of an edit's name). With the device's SM
    count, grid too (0: Inductor's grid; then GRID_TIMES that many
    programs, those under a static xnumel: with as many tiles or fewer it
    would change nothing). The transforms of kinds transforms (the
    analyst's choice) where they apply ("off" first)."""
    out: dict = {}
    for i, (a, b) in enumerate(loads(src)):
        own = load_knobs(src[a:b])
        out[f"evict{i}"] = [own["evict"]] + [v for v in EVICT if v != own["evict"]]
        out[f"cache{i}"] = [own["cache"]] + [v for v in CACHE if v != own["cache"]]
    loops = list(LOOP.finditer(src))
    if loops and not any(m["kw"].strip() for m in loops):
        out["rstages"] = [0] + list(RSTAGES)  # 0: unset, the kernel's num_stages
        out["runroll"] = [0] + list(RUNROLL)  # 0: unset, the compiler's choice
    try:
        persist(src)
        out["persist"] = ["off", "on"]
    except KnobError:
        pass
    if sms > 0:
        try:
            _grid_site(src)
            xn = _static_xnumel(src)
            gs = [sms * t for t in GRID_TIMES if sms * t <= GRID_MAX and (xn is None or sms * t < xn)]
            if gs:
                out["grid"] = [0] + gs
        except KnobError:
            pass
    ok, _ = T.applies(src, [k for k in T.KINDS if k in transforms])
    for k in T.KINDS:
        if k in ok:
            out[k] = ["off"] + ok[k]
    own = template_tile(src)
    kk = _static_k(src)
    for k, v in own.items():
        vals = [x for x in TILE[k] if k != "BLOCK_K" or x == v or (kk is not None and kk % x == 0)]
        out[k] = [v] + [x for x in vals if x != v]
    return out


def edit_of(settings: dict, sp: dict) -> str:
    """The edit's name for knob settings in space sp: the knobs that differ
    from Inductor's own values."""
    return name({k: v for k, v in settings.items() if k in sp and v != sp[k][0]})


def turns_on_persist(old: str, new: str) -> bool:
    """Whether the move from edit old to edit new turns persist on (the
    screen then moves the config to persist_config's)."""
    return "persist" in parse(new) and "persist" not in parse(old)


def allowed(knobs: dict) -> bool:
    """Whether Triton 3.6 compiles the combination: a load with an L1
    cache modifier (.ca, .cg) and an eviction policy fails in ptxas
    ("Internal Triton PTX codegen error", seen on the H200 for every load of
    a looped layer norm, whose loads Inductor gives a policy); .cv with one
    compiles. And not rloop with persist: the persistent branch runs each
    loop once, at its start, and a walk back would be the looped branch's
    alone, which persist does not keep for it."""
    if knobs.get("rloop", "off") != "off" and knobs.get("persist", "off") == "on":
        return False
    for k, v in knobs.items():
        m = KNOB.match(f"{k}={v}")
        if m and m["kind"] == "cache" and v in ("ca", "cg") and \
                knobs.get(f"evict{m['i']}", "none") in ("first", "last"):
            return False
    return True


def neighbours(edit: str, sp: dict) -> list[str]:
    """The edits one knob away: each knob of the space moved to each other
    value (a load's policy, the loop's depth one step up or down)."""
    cur = {k: vals[0] for k, vals in sp.items()}
    cur.update(parse(edit))
    out = []
    for k, vals in sp.items():
        if k in LADDERS:
            ladder = sorted(vals)
            i = ladder.index(cur[k])
            moves = [ladder[j] for j in (i - 1, i + 1) if 0 <= j < len(ladder)]
        else:
            moves = [v for v in vals if v != cur[k]]
        for v in moves:
            d = dict(cur)
            d[k] = v
            if not allowed(d):
                continue
            e = edit_of(d, sp)
            if e not in out and e != edit:
                out.append(e)
    return out
