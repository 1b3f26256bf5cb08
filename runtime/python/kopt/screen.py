"""Screening: many launch configs of one kernel, timed alone, before the gates.

A verify runs the whole model over several seeds; most configs of a kernel
lose, and knowing that costs a launch, not a verify. ``screen`` takes the
kernel's arguments from one real run of the compiled model (the tensors as
they were just before its first launch), then searches its launch configs:
each config is compiled, checked against Inductor's own kernel on copies of
those arguments (every tensor argument afterwards, allclose at the gates'
tolerances), and timed with CUPTI beside the baseline kernel, interleaved,
the L2 flushed before each launch. Only the best few go on to the four
gates, which stay the judge.

The search is a multi-start pattern search: from each start (the kernel's
own config and the ones koptmake sends: memory's lessons, another variant's
pick), every single move (a block size or num_warps doubled or halved,
num_stages up or down) and every paired move (a block traded for another,
warps with a block), the best improvement taken, until none improves by more
than the noise or the time budget is spent. Inductor's coordinate descent
moves one key at a time; the paired moves reach what it cannot.

The source knobs are searched with the launch keys (kopt.knobs): a point of
the search is a launch config and an edit of the kernel's source (the empty
edit is Inductor's own), and the moves from a point are its config's moves
on the same edit, ``maxnreg`` one step along its ladder, and each knob of
the edit moved to another value on the same config (a load's eviction
policy or cache modifier, the row loop's pipelining or unrolling; a
looped reduction made persistent, with the config it needs; a GEMM
template's tile). A template's num_stages moves as its num_warps does. A point
with an edit is compiled from the edited text; a best one goes back with
its edit's name and text, so that the candidate it becomes, its verdict,
the report and the deployment all name the same edit.

The request's "skills" (wins of earlier builds on kernels of the same
class or features, from the long-term memory: an edit and the config it
won at) and "transforms" (the analyst's choice from the kernel's
diagnosis: kopt.transforms' edits, with why) are points measured first,
after the kernel's own: the skills', then the transforms'; their kinds of
knob join the space, so the search moves them too. Every start is measured
before any descent, and the descents go from the fastest start first. A
row reached from a skill's start names the skill ("skill"), and one from a
transform's its reason ("transform"): the candidate the best becomes says
which skill, or which diagnosis, made its win.

A config that kills the CUDA context (an illegal memory access: nothing
more can run in this process) is a row that failed with the reason; the
screen stops there and answers what it has with "lost", and the worker is
replaced. koptmake sends the screen again to the next worker with every
row so far ("resume": {"tried", "elapsed_s"}): those are not measured
again, the one that crashed included, and the search goes on from them
within what is left of the budget (rules/screen.c).
"""

from __future__ import annotations

import time

import torch

from . import kernels as K
from . import knobs as N
from . import measure as M
from . import precompile as P
from . import static_config as SC
from . import verify as V

BLOCK_KEYS = ("XBLOCK", "YBLOCK", "R0_BLOCK", "R1_BLOCK")
NUMEL_OF = {"XBLOCK": "xnumel", "YBLOCK": "ynumel", "R0_BLOCK": "r0_numel", "R1_BLOCK": "r1_numel"}
MAX_BLOCK = 4096
MAX_ELEMS = 1 << 16          # elements per program (blocks multiplied): register pressure bound
PAIRS = (("XBLOCK", 2, "R0_BLOCK", 0.5), ("XBLOCK", 0.5, "R0_BLOCK", 2), ("XBLOCK", 2, "YBLOCK", 0.5),
         ("XBLOCK", 0.5, "YBLOCK", 2), ("num_warps", 2, "R0_BLOCK", 2), ("num_warps", 0.5, "R0_BLOCK", 0.5),
         ("num_warps", 2, "XBLOCK", 2), ("num_warps", 0.5, "XBLOCK", 0.5))
PREFETCH_WAIT = 30.0  # seconds a point waits at most for the compile child that has it
MAXNREG = (0, 255, 192, 128, 96, 64, 48, 32)  # 0: unset (the compiler's own budget)


def _fits(maxnreg: int, cfg: dict) -> bool:
    """Whether a budget of maxnreg registers per thread fits an SM's
    register file at cfg's warps."""
    return maxnreg * 32 * cfg.get("num_warps", 4) <= K.SM_LIMITS["regs"]


def _pow2_ceil(n: int) -> int:
    return 1 << max(0, int(n - 1).bit_length())


class Launch:
    """The first launch of one kernel in a model call: its arguments as
    they were before it ran, and its keyword arguments (the stream)."""

    def __init__(self, c, name: str, inputs: list):
        objs = c.kernel_objects()
        if name not in objs:
            raise KeyError(f"no Triton kernel {name} in the output code")
        self.obj = objs[name]
        self.name = name
        seen: list = []
        orig = self.obj.run

        def run(*args, **kw):
            if not seen:
                seen.append(([a.clone() if isinstance(a, torch.Tensor) else a for a in args], dict(kw)))
            return orig(*args, **kw)

        self.obj.run = run
        try:
            c.run(inputs)
            torch.cuda.synchronize()
        finally:
            try:
                del self.obj.run
            except AttributeError:
                self.obj.run = orig
        if not seen:
            raise RuntimeError(f"{name} did not run in a call of the model")
        self.args, self.kwargs = seen[0]
        names = list(getattr(getattr(self.obj, "fn", None), "arg_names", []) or [])
        self.numel = {n: int(a) for n, a in zip(names, self.args) if n.endswith("numel") and isinstance(a, int)}

    def work(self) -> list:
        return [a.clone() if isinstance(a, torch.Tensor) else a for a in self.args]

    def launch(self, kernel, work: list) -> None:
        kernel.run(*work, **self.kwargs)


def _close(a: torch.Tensor, b: torch.Tensor, gates: dict) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not a.is_floating_point():
        return bool(torch.equal(a, b))
    atol, rtol = V.tolerance(gates, str(a.dtype).removeprefix("torch."))  # the request's, as the gates have them
    return V.allclose64(b, a, atol, rtol)  # in chunks: a kernel's 8 GB output is 16 GB in float64


class Screen:
    def __init__(self, c, launch: Launch, decl, gates: dict, flush, reps: int):
        self.c, self.l, self.decl, self.gates, self.flush, self.reps = c, launch, decl, gates, flush, reps
        ref = launch.work()
        launch.launch(launch.obj, ref)
        torch.cuda.synchronize()
        self.ref = [a for a in ref if isinstance(a, torch.Tensor)]
        self.base_work = launch.work()
        self.tried: dict = {}          # key -> row
        self.compiles = 0
        self.prefetched = 0            # points whose compile a child had done
        self.space: dict = {}          # the source knobs searched (kopt.knobs.space)
        self.maxnreg = False           # whether maxnreg is searched
        self.pool = P.pool()           # compile children (kopt.precompile), or None
        self.pending: dict = {}        # key -> precompile.Point sent to them
        self.deadline = float("inf")   # when the screen's time is up (screen() sets it)
        self.sources: dict = {}        # edit -> its text (kopt.knobs.apply), made once
        self.own: dict = {}            # the kernel's own launch config (screen() sets it)
        self.refused: list = []        # the skills' and transforms' edits that do not apply here, and why

    def source(self, edit: str) -> str:
        """Inductor's kernel source with the edit's knobs set, each edit's
        text made once (the prefetch, the measure and the best's source
        all want it)."""
        if not edit:
            return self.decl.source
        if edit not in self.sources:
            self.sources[edit] = N.apply(self.decl.source, edit)
        return self.sources[edit]

    @staticmethod
    def key(cfg: dict, edit: str = "") -> str:
        return " ".join(f"{k}={cfg[k]}" for k in sorted(cfg)) + (f" edit={edit}" if edit else "")

    def measure(self, cfg: dict, edit: str = "", origin: dict | None = None) -> dict:
        k = self.key(cfg, edit)
        if k in self.tried:
            return self.tried[k]
        row = {"config": cfg, "edit": edit, "ok": False}
        if origin:  # a skill's or a transform's start, or a point reached from one
            row.update(origin)
        pt = self.pending.pop(k, None)
        if pt is not None:  # a child is compiling it: its cache entry, not a compile of our own
            done = pt.wait(max(0.0, min(PREFETCH_WAIT, self.deadline - time.perf_counter())))
            self.prefetched += done
            row["prefetched"] = done
        self.tried[k] = row
        try:
            source = self.source(edit)
            t = time.perf_counter()
            obj = K.load_kernel(self.decl.name, source, f"screen {k}", cfg)
            row["load_s"] = round(time.perf_counter() - t, 4)  # the compile, or the cache's read
            if isinstance(getattr(obj, "kopt_load_parts", None), dict):
                row["load_parts"] = obj.kopt_load_parts
            # a point compiled ahead that Triton's cache did not answer: the
            # child's key and ours, where they differ (what the cache missed on)
            missed = K.key_difference(pt.key, getattr(obj, "kopt_triton_key", None)) if pt is not None and pt.ok else None
            if missed:
                row["ahead_missed"] = missed
            self.compiles += 1
            regs = getattr(obj.launchers[0], "n_regs", None) if obj.launchers else None
            if regs is not None:
                row["n_regs"] = int(regs)
            if cfg.get("maxnreg") and regs is not None and regs > cfg["maxnreg"]:
                row["error"] = f"maxnreg={cfg['maxnreg']} not applied: the kernel has {regs} registers"
                return row
            work = self.l.work()
            self.l.launch(obj, work)
            torch.cuda.synchronize()
            outs = [a for a in work if isinstance(a, torch.Tensor)]
            if not all(_close(r, o, self.gates) for r, o in zip(self.ref, outs)):
                row["error"] = "outputs differ from the baseline kernel's"
                return row
            # timed on the arguments it was checked on, as the baseline
            # kernel is on its own: a third copy of a large kernel's
            # arguments ran the GPU out of memory
            del outs
            b, cnd = M.timed_calls([lambda: self.l.launch(self.l.obj, self.base_work),
                                    lambda: self.l.launch(obj, work)], self.reps, self.flush)
            name = self.l.name
            bt = [sum(r[2] - r[1] for r in x.records if r[0] == name) for x in b]
            ct = [sum(r[2] - r[1] for r in x.records if r[0] == name) for x in cnd]
            if min(bt) <= 0 or min(ct) <= 0:
                row["error"] = "no kernel record in the timed launches"
                return row
            ratios = sorted(x / y for x, y in zip(bt, ct))
            row.update(ok=True, base_ns=M.median(bt), ns=M.median(ct), speedup=ratios[len(ratios) // 2],
                       q25=ratios[len(ratios) // 4])
        except torch.cuda.OutOfMemoryError:
            raise  # the worker makes room and asks again
        except Exception as exc:  # a config that does not compile or launch is a row, not a failure
            if V.is_sticky(exc):  # nor is one that kills the context: the screen stops at it
                row["error"] = V.lost_reason(exc)
                raise V.ContextLost(row["error"]) from exc
            row["error"] = (str(exc).splitlines() or [repr(exc)])[0][:200]
        return row

    def valid(self, cfg: dict, edit: str = "") -> bool:
        elems = 1
        # a persistent edit holds its whole row: R0_BLOCK up to persist.c's bound
        rmax = N.PERSIST_MAX if "persist=" in edit else MAX_BLOCK
        for key in BLOCK_KEYS:
            if key in cfg:
                v = cfg[key]
                # the kernel's own config is in bounds, whatever its blocks
                # (Inductor gives a long row's reduction R0_BLOCK 16384):
                # its moves down are too
                # and no block past Inductor's largest for its axis, which
                # gate 1 refuses (static_config.INDUCTOR_MAX_BLOCK)
                top = max(min(rmax if key == "R0_BLOCK" else MAX_BLOCK, SC.INDUCTOR_MAX_BLOCK.get(key, MAX_BLOCK)),
                          self.own.get(key, 0))
                cap = min(top, _pow2_ceil(self.l.numel.get(NUMEL_OF[key], top)))
                if v < 1 or v > max(1, cap):
                    return False
                elems *= v
        if elems > MAX_ELEMS:
            return False
        if not 1 <= cfg.get("num_warps", 4) <= 32:
            return False
        if "maxnreg" in cfg and (cfg["maxnreg"] not in MAXNREG[1:] or not _fits(cfg["maxnreg"], cfg)):
            return False
        return 1 <= cfg.get("num_stages", 1) <= 5

    def neighbours(self, cfg: dict, edit: str = "") -> list[dict]:
        out = []

        def scaled(c: dict, key: str, f: float) -> dict | None:
            if key not in c:
                return None
            v = c[key] * f
            if v != int(v):
                return None
            d = dict(c)
            d[key] = int(v)
            return d

        for key in BLOCK_KEYS + ("num_warps",):
            for f in (2, 0.5):
                d = scaled(cfg, key, f)
                if d:
                    out.append(d)
        if "num_stages" in cfg and ("R0_BLOCK" in cfg or self.decl.heuristic == "template"):
            for dv in (1, -1):
                d = dict(cfg)
                d["num_stages"] = cfg["num_stages"] + dv
                out.append(d)
        for a, fa, b, fb in PAIRS:
            d = scaled(cfg, a, fa)
            d = scaled(d, b, fb) if d else None
            if d:
                out.append(d)
        if self.maxnreg:
            # one step along the ladder; from unset, the largest budget the
            # register file holds at the config's warps
            cur = cfg.get("maxnreg", 0)
            fits = [r for r in MAXNREG[1:] if _fits(r, cfg)]
            steps = fits[:1] if not cur else [MAXNREG[j] for j in (MAXNREG.index(cur) - 1, MAXNREG.index(cur) + 1)
                                              if cur in MAXNREG and 0 <= j < len(MAXNREG)]
            for r in steps:
                d = dict(cfg)
                d.pop("maxnreg", None)
                if r:
                    d["maxnreg"] = r
                out.append(d)
        return [d for d in out if self.valid(d, edit)]

    def prefetch(self, points: list[tuple[dict, str]]) -> None:
        """Sends the points not measured yet to the compile children, in
        the order they will be measured."""
        if self.pool is None:
            return
        out = []
        for cfg, edit in points:
            k = self.key(cfg, edit)
            if k in self.tried or k in self.pending:
                continue
            self.pending[k] = P.Point(self.decl.name, self.source(edit), cfg)
            out.append(self.pending[k])
        self.pool.submit(out)

    def moves(self, cfg: dict, edit: str) -> list[tuple[dict, str]]:
        """The points one move away: the config's moves on the same edit,
        then each knob moved on the same config."""
        out = [(d, edit) for d in self.neighbours(cfg, edit)]
        for e in N.neighbours(edit, self.space):
            # persist=on acts only where R0_BLOCK covers the row: its config with it
            c = N.persist_config(self.decl.source, cfg) if N.turns_on_persist(edit, e) else cfg
            if self.valid(c, e):
                out.append((c, e))
        return out


def screen(c, req: dict, flush) -> dict:
    """The "screen" request (PROTOCOL.md); "resume" carries the rows of the
    screen's earlier workers, and the seconds they took."""
    resume = req.get("resume") or {}
    t0 = time.perf_counter() - float(resume.get("elapsed_s") or 0)
    name = req["kernel"]
    gates = req["gates"]
    budget = float(req.get("budget_s", 30))
    max_configs = int(req.get("max_configs", 64))
    keep = int(req.get("keep", 4))
    decl = next((d for d in c.decls if d.name == name), None)
    if decl is None:
        raise KeyError(f"no Triton kernel {name} in the output code")
    launch = Launch(c, name, c.problem.inputs(0))
    own = K.current_config(launch.obj)
    if own is None:
        raise RuntimeError(f"{name} has no launch config to start from")
    s = Screen(c, launch, decl, gates, flush, int(req.get("reps", 7)))
    s.deadline, s.own = t0 + budget, own
    chosen = [x for x in (req.get("skills") or []) + (req.get("transforms") or []) if isinstance(x, dict)]
    if req.get("knobs", True) and decl.heuristic in ("pointwise", "reduction", "persistent_reduction", "template"):
        kinds = {k for x in chosen for k in _kinds(x.get("edit"))}
        s.space = N.space(decl.source, torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count,
                          transforms=kinds)
        s.maxnreg = True
    for r in resume.get("tried") or []:
        if isinstance(r, dict) and isinstance(r.get("config"), dict):
            s.tried[Screen.key(r["config"], r.get("edit") or "")] = r
    try:
        lost = walk(s, own, req, t0, budget, max_configs)
    finally:
        if s.pool is not None:  # what the children have not started is not needed
            s.pool.drop()
    rows = list(s.tried.values())
    good = sorted((r for r in rows if r.get("ok")), key=lambda r: -r["speedup"])
    ownkey = Screen.key(own)
    best = [dict(r) for r in good if Screen.key(r["config"], r.get("edit", "")) != ownkey][:keep]
    for r in best:  # the edited text goes with its name: the candidate carries both
        if r.get("edit"):
            r["source"] = s.source(r["edit"])
    out = {"kernel": name, "own": own, "numel": launch.numel, "tried": rows, "best": best,
           "refused": s.refused,
           "knobs": sorted(s.space) + (["maxnreg"] if s.maxnreg else []),
           "compiles": s.compiles, "prefetched": s.prefetched, "elapsed_s": round(time.perf_counter() - t0, 3),
           "budget_spent": time.perf_counter() - t0 >= budget or len(s.tried) >= max_configs}
    if lost:
        out["lost"] = lost
    return out


def _kinds(edit) -> list:
    try:
        return N.kinds(edit) if isinstance(edit, str) else []
    except N.KnobError:
        return []


def start_points(s: Screen, own: dict, req: dict) -> list[tuple[dict, str, dict | None]]:
    """The search's starts, in the order they are measured: the kernel's
    own config, the skills' points, the analyst's transforms (at the
    kernel's config, or the one persist=on needs), then the configs other
    variants gave the kernel. An edit that does not apply here is left
    out, and said in s.refused."""
    out: list = [(own, "", None)]
    for what, items in (("skill", req.get("skills")), ("transform", req.get("transforms"))):
        for x in items or []:
            if not isinstance(x, dict) or not isinstance(x.get("edit"), str):
                continue
            edit = x["edit"]
            try:
                N.apply(s.decl.source, edit)
                cfg = dict(x["config"]) if isinstance(x.get("config"), dict) else dict(own)
                if "persist" in N.parse(edit):
                    cfg = N.persist_config(s.decl.source, cfg)
            except N.KnobError as e:
                s.refused.append({"edit": edit, what: x.get(what) or x.get("why") or "", "why": str(e)})
                continue
            if not s.valid(cfg, edit):
                cfg = dict(own)
            out.append((cfg, N.name(N.parse(edit)), {what: x.get(what) or x.get("why") or edit}))
    out += [(dict(x), "", None) for x in (req.get("starts") or []) if isinstance(x, dict)]
    return out


def walk(s: Screen, own: dict, req: dict, t0: float, budget: float, max_configs: int) -> str | None:
    """Every start measured, then the pattern search from each, the
    fastest first; the reason where a config lost the CUDA context (the
    search stops there), else None."""
    noise = float(req.get("noise", 0.01))
    try:
        firsts = []
        for cfg, edit, origin in start_points(s, own, req):
            if (not s.valid(cfg, edit) and cfg is not own) or len(s.tried) >= max_configs:
                continue
            if time.perf_counter() - t0 >= budget and firsts:
                break
            firsts.append(s.measure(cfg, edit, origin))
        firsts.sort(key=lambda r: -r.get("speedup", 0) if r.get("ok") else 0)
        for cur in firsts:
            while (time.perf_counter() - t0 < budget and len(s.tried) < max_configs and cur.get("ok")):
                best = cur
                moves = s.moves(cur["config"], cur.get("edit", ""))
                s.prefetch(moves[:max(0, max_configs - len(s.tried))])
                origin = {k: cur[k] for k in ("skill", "transform") if k in cur} or None
                for d, e in moves:
                    if time.perf_counter() - t0 >= budget or len(s.tried) >= max_configs:
                        break
                    r = s.measure(d, e, origin)
                    if r.get("ok") and r["speedup"] > best["speedup"] * (1 + noise):
                        best = r
                if best is cur:
                    break
                cur = best
    except V.ContextLost as exc:
        return str(exc)
    return None
