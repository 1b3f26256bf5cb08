"""Helion kernels: the file form, configs, generated Triton and baselines.

A Helion kernel file (``helion NAME { source = "FILE.py" }`` in a spec)
defines, as module globals:

- one or more ``@helion.kernel`` functions: what the agents tune. A
  candidate is a ``helion.Config`` for one of them (a dict of its keys:
  block_sizes, num_warps, num_stages, loop_orders, indexing, pid_type,
  range_*...), or an edit of the Triton code Helion generates for the
  config in use (what no config expresses); never a change of the Python
  around them;
- ``reference(*inputs)``: the same result in plain PyTorch (the
  correctness gate's float64 reference runs it on float64 copies);
- ``get_inputs()``: the inputs, as in KernelBench files;
- optionally ``launch(*inputs)``: calls the kernels (by their global
  names, looked up at call time) and returns the outputs. Without it the
  file's one kernel is called on the inputs.

The baseline is each kernel's own config: the one its decorator pins
(``config=``, or ``configs=`` of one), else Helion's default config for
the shapes (``config_spec.default_config()``). Nothing autotunes on a
worker's first call. The Triton code Helion generates for the config in
use is the kernel's source in the inventory; its launched kernels
(``_helion_NAME``) are what CUPTI times.

Helion is imported from ``KOPT_HELION_PATH`` (folders, ``:``-separated,
put first on sys.path) or from wherever the worker's Python finds it.
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass, field

import torch

from . import kernels as K
from . import measure as M
from .problem import Compiled, Problem, Swaps

LAUNCH = re.compile(r"_launcher\((?P<name>\w+),(?P<rest>.*)\)\s*$", re.M)
WARPS = re.compile(r"\bnum_warps=(\d+)")
STAGES = re.compile(r"\bnum_stages=(\d+)")


def import_helion():
    for d in reversed((os.environ.get("KOPT_HELION_PATH") or "").split(os.pathsep)):
        if d and d not in sys.path:
            sys.path.insert(0, d)
    # Helion's subprocess benchmark does not finish inside the worker
    # (shared/vendor/README.md); benchmarking in process does
    os.environ.setdefault("HELION_AUTOTUNE_BENCHMARK_SUBPROCESS", "0")
    try:
        import helion
    except ImportError as exc:
        raise ImportError(f"Helion kernels need helion: pip install helion, or set KOPT_HELION_PATH ({exc})") from exc
    return helion


def file_kernels(module) -> dict:
    """The file's own ``@helion.kernel`` globals, by global name."""
    helion = import_helion()
    return {var: obj for var, obj in vars(module).items()
            if isinstance(obj, helion.Kernel) and getattr(obj.fn, "__module__", None) == module.__name__}


def load(path: str, module, digest: str, seed: int) -> Problem:
    for name in ("reference", "get_inputs"):
        if not hasattr(module, name):
            raise AttributeError(f"{path} has no {name} (a Helion kernel file wants @helion.kernel functions, "
                                 "reference, get_inputs and, with more than one kernel, launch)")
    ks = file_kernels(module)
    if not ks:
        raise AttributeError(f"{path} defines no @helion.kernel function")
    if hasattr(module, "launch"):
        fn = module.launch
    elif len(ks) == 1:
        var = next(iter(ks))
        fn = lambda *xs: getattr(module, var)(*xs)  # noqa: E731 (the global, looked up per call: swaps see it)
    else:
        raise AttributeError(f"{path} defines {len(ks)} Helion kernels and no launch(*inputs)")
    for var, k in ks.items():
        setattr(module, var, pinned(k, own_config(k)))
    return Problem("helion", path, module, fn, reference=module.reference, digest=digest, seed=seed,
                   extra={"helion_kernels": list(ks)})


def own_config(k):
    """The config k's decorator pins, or None (then Helion's default)."""
    return k.configs[0] if len(k.configs) == 1 else None


def settings_of(k, **changes):
    """A copy of k's settings with changes: the autotuner's effort, whether
    a given config is autotuned anyway."""
    import copy
    import dataclasses

    try:
        s = copy.copy(k.settings)
    except Exception:  # a Settings that does not copy: made anew from its fields
        helion = import_helion()
        s = helion.Settings(**{f.name: getattr(k.settings, f.name)
                               for f in dataclasses.fields(k.settings) if f.init})
    for name, value in changes.items():
        setattr(s, name, value)
    return s


def pinned(k, config):
    """A new Kernel of k's function that runs config (a dict or
    helion.Config), or Helion's default config when config is None."""
    helion = import_helion()
    if config is None:
        return helion.Kernel(k.fn, configs=[], settings=settings_of(k, autotune_effort="none", force_autotune=False),
                             key=getattr(k, "_key_fn", None))
    cfg = config if isinstance(config, helion.Config) else helion.Config(**config)
    return helion.Kernel(k.fn, configs=[cfg], settings=settings_of(k, force_autotune=False),
                         key=getattr(k, "_key_fn", None))


def bound_of(k):
    """The bound kernel k ran with last (one run of the problem first)."""
    bks = list(getattr(k, "_bound_kernels", {}).values())
    if not bks:
        raise RuntimeError(f"Helion kernel {k.name} did not run in a call of launch")
    return bks[-1]


def config_dict(cfg) -> dict:
    return dict(cfg)


def launches(code: str) -> list[dict]:
    """The Triton kernels the generated code launches, with the launch
    config written on each launch line."""
    out = []
    for m in LAUNCH.finditer(code):
        w, s = WARPS.search(m["rest"]), STAGES.search(m["rest"])
        if any(x["name"] == m["name"] for x in out):
            continue
        out.append({"name": m["name"], "num_warps": int(w.group(1)) if w else None,
                    "num_stages": int(s.group(1)) if s else None, "line": m.group(0).strip()})
    return out


@dataclass
class HelionCompiled(Compiled):
    kernels: dict = field(default_factory=dict)     # global name -> Kernel running now
    configs: dict = field(default_factory=dict)     # global name -> its config (dict)
    codes: dict = field(default_factory=dict)       # global name -> generated Triton code
    launched: dict = field(default_factory=dict)    # global name -> launches()

    def kernel_objects(self) -> dict:
        return {}   # no Inductor kernel objects: record_args() stands for record_kernel_args()


def compile_problem(problem: Problem) -> HelionCompiled:
    """Runs the problem once at its kernels' own configs and reads, per
    kernel, the config in use, its generated Triton code and launches."""
    c = HelionCompiled(problem, {"name": "default"}, problem.fn)
    c.modules = [problem.module]
    t0 = time.perf_counter()
    c.run(problem.inputs(0))
    torch.cuda.synchronize()
    c.compile_s = time.perf_counter() - t0
    codes = []
    for var in problem.extra["helion_kernels"]:
        k = getattr(problem.module, var)
        bk = bound_of(k)
        cfg = bk._config if bk._config is not None else bk._require_implicit_config()
        code = bk.to_triton_code(cfg)
        c.kernels[var], c.configs[var], c.codes[var] = k, config_dict(cfg), code
        c.launched[var] = launches(code)
        codes.append(f"# helion kernel {var}: {bk.format_kernel_decorator(cfg, bk.settings)}\n{code}")
        for ln in c.launched[var] or [{"name": f"_helion_{k.name}"}]:
            c.decls.append(K.KernelDecl(var, ln["name"], code, "helion"))
    c.output_code = "\n# ---- next kernel ----\n".join(codes)
    return c


def decorator(var: str, config: dict) -> str:
    """What a user pastes above the kernel: @helion.kernel(config=...)."""
    args = ", ".join(f"{k}={v!r}" for k, v in config.items())
    return f"@helion.kernel(config=helion.Config({args}))  # {var}"


def inventory(c: HelionCompiled, names_seen: list[str], args: dict) -> list[dict]:
    out, seen = [], set()
    for d in c.decls:
        seen.add(d.name)
        ln = next((x for x in c.launched.get(d.var, []) if x["name"] == d.name), {})
        out.append({
            "name": d.name, "kind": "triton", "source_hash": d.hash, "source": d.source,
            "heuristic": "helion", "config": c.configs[d.var], "helion_kernel": d.var,
            "launch": {k: ln.get(k) for k in ("num_warps", "num_stages", "line")},
            "decorator": decorator(d.var, c.configs[d.var]), "args": args.get(d.name, []),
        })
    for n in names_seen:
        if n not in seen:
            seen.add(n)
            out.append({"name": n, "kind": K.classify(n, set()), "source_hash": None, "source": None,
                        "heuristic": None, "config": None, "args": []})
    return out


def tensors(x) -> list:
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in tensors(v)]
    return []


def record_args(c: HelionCompiled, inputs) -> dict:
    """Per launched Triton kernel, the tensors of its Helion kernel's first
    call, arguments and results (shape, dtype, bytes): the bytes it moves,
    as the arguments of an Inductor kernel give them."""
    seen: dict = {}
    mod = c.problem.module

    def wrap(var, k):
        def call(*args):
            out = k(*args)
            if var not in seen:
                seen[var] = [{"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."),
                              "numel": t.numel(), "bytes": t.numel() * t.element_size()}
                             for t in tensors(list(args)) + tensors(out)]
            return out
        return call

    with Swaps(c, {var: wrap(var, getattr(mod, var)) for var in c.kernels}):
        c.run(inputs)
        torch.cuda.synchronize()
    return {d.name: seen.get(d.var, []) for d in c.decls}


def spliced(code: str, source: str) -> str:
    """The generated module code with the top-level functions source
    defines (the @triton.jit kernels an edit rewrote) put in place of the
    ones of the same names; source itself where it is a whole module (it
    defines every function code does)."""
    import ast

    mod, new = ast.parse(code), ast.parse(source)
    defs = {n.name: n for n in new.body if isinstance(n, ast.FunctionDef)}
    names = {n.name for n in mod.body if isinstance(n, ast.FunctionDef)}
    if names and names <= set(defs):
        return source
    unknown = set(defs) - names
    if not defs or unknown:
        raise ValueError(f"the edit defines no function of the generated code ({', '.join(sorted(unknown)) or 'none'})")
    mod.body = [defs.get(n.name, n) if isinstance(n, ast.FunctionDef) else n for n in mod.body]
    return ast.unparse(mod)


def candidate(c: HelionCompiled, kernel: str, cand: dict):
    """(decl, callable) for a candidate of the Triton kernel named kernel,
    for K.Swap on the module global: a config alone is its Helion kernel
    with that config pinned; a source is an edit of the generated Triton
    code (what a helion.Config cannot express), loaded as a module whose
    host function, of the kernel's signature, takes the kernel's place."""
    decl = next((d for d in c.decls if d.name == kernel), None)
    if decl is None:
        raise KeyError(f"no Helion kernel launches {kernel}")
    k = c.kernels[decl.var]
    if cand.get("source"):
        from torch._inductor.codecache import PyCodeCache

        mod = PyCodeCache.load(spliced(c.codes[decl.var], cand["source"]))
        return decl, getattr(mod, k.name)
    cfg = cand.get("config")
    if not isinstance(cfg, dict):
        raise ValueError("a Helion candidate needs a helion.Config or an edit of the generated code")
    from .static_config import check_helion_config
    from .static_lists import Reject

    try:  # gate 1's rule (kopt.static_config), held wherever a config is pinned
        check_helion_config(cfg, c.configs.get(decl.var) or {})
    except Reject as e:
        raise ValueError(str(e)) from None
    helion = import_helion()
    return decl, pinned(k, helion.Config(**cfg))


def _time(c: HelionCompiled, swaps: list[dict], inputs, flush, n: int) -> list[float]:
    """Median model times (CUDA events, L2 flushed, interleaved) with each
    {global: Kernel} of swaps in place."""

    def runner(sw):
        def go():
            with Swaps(c, sw):
                c.run(inputs)
        return go
    fns = [runner(sw) for sw in swaps]
    for f in fns:
        f()
    torch.cuda.synchronize()
    M.drain()
    timed = M.timed_calls(fns, n, flush)
    return [M.median([x.event_ns for x in calls]) for calls in timed]


def autotune(k, args, effort: str) -> tuple[dict | None, float, str | None]:
    """Helion's own autotuner at effort, the disk cache skipped so its wall
    time is its search's: (config, seconds, error)."""
    os.environ["HELION_SKIP_CACHE"] = "1"
    t0 = time.perf_counter()
    try:
        fresh = pinned(k, None)
        fresh.settings.autotune_effort = effort
        bk = fresh.bind(tuple(args))
        cfg = bk.autotune(tuple(args), force=True)
        return config_dict(cfg), time.perf_counter() - t0, None
    except Exception as exc:  # a baseline that cannot run is reported, not fatal
        import traceback

        traceback.print_exc(file=sys.stderr)
        return None, time.perf_counter() - t0, (str(exc).splitlines() or [repr(exc)])[0][:300]
    finally:
        os.environ.pop("HELION_SKIP_CACHE", None)


def baselines(c: HelionCompiled, req: dict, flush, n: int = 20) -> dict:
    """Per Helion kernel: its own config, Helion's quick autotune and, with
    "full" in the request, its full-effort autotune; each found config
    timed in the model beside the own one, and each search's wall time."""
    efforts = ["quick"] + (["full"] if req.get("helion_full") else [])
    out = []
    inputs = c.problem.inputs(0)
    for var, k in c.kernels.items():
        args = _args_of(c, var, inputs)
        row = {"kernel": var, "names": [d.name for d in c.decls if d.var == var],
               "default": {"config": c.configs[var]}}
        found = {}
        for effort in efforts:
            cfg, wall, err = autotune(k, args, effort)
            row[effort] = {"config": cfg, "wall_s": round(wall, 3)}
            if err:
                row[effort]["error"] = err
            elif cfg is not None:
                found[effort] = cfg
                row[effort]["decorator"] = decorator(var, cfg)
        swaps = [{}] + [{var: pinned(k, cfg)} for cfg in found.values()]
        ns = _time(c, swaps, inputs, flush, n)
        row["default"]["ns"] = ns[0]
        for effort, t in zip(found, ns[1:]):
            row[effort]["ns"] = t
        out.append(row)
    return {"kernels": out, "efforts": efforts}


def race(c: HelionCompiled, winners: dict, baselines: list, flush, n: int = 20) -> dict:
    """The file's launch, side by side (interleaved, L2 flushed): with the
    kernels' own configs, with the configs Helion's autotuner found in the
    profile (baselines: [{kernel, quick, full}], configs or None) and with
    koptmake's winners ({global: callable}, the stitch's swaps; none: no
    row). The stitch asks for it, so that the report compares them in one
    measurement rather than across the profile's and the stitch's."""
    sets = {"own_ns": {}}
    for effort in ("quick", "full"):
        sw = {b["kernel"]: pinned(c.kernels[b["kernel"]], b[effort]) for b in baselines
              if b.get(effort) and b.get("kernel") in c.kernels}
        if sw:
            sets[f"{effort}_ns"] = sw
    if winners:
        sets["koptmake_ns"] = winners
    ns = _time(c, list(sets.values()), c.problem.inputs(0), flush, n)
    return dict(zip(sets, ns))


def _args_of(c: HelionCompiled, var: str, inputs) -> list:
    """The arguments of var's first call in a run of the problem."""
    mod = c.problem.module
    k = getattr(mod, var)
    seen: list = []

    def call(*args):
        if not seen:
            seen.append([a.clone() if isinstance(a, torch.Tensor) else a for a in args])
        return k(*args)
    with Swaps(c, {var: call}):
        c.run(inputs)
        torch.cuda.synchronize()
    if not seen:
        raise RuntimeError(f"Helion kernel {var} did not run in a call of launch")
    return seen[0]
