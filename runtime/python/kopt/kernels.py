"""Inductor's output code: splitting it into kernels, loading and swapping them.

Facts this relies on (torch 2.11): each Triton kernel is declared as
``name = async_compile.triton('name', '''<source>''', device_str='cuda')``;
the wrapper's ``call`` looks kernels up as module globals at run time, so
replacing ``mod.__dict__[name]`` swaps a kernel in a live module; kernel
objects are shared by source text, so a variant gets text of its own.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import time
from dataclasses import dataclass

DECL = re.compile(
    r"^(?P<var>\w+) = async_compile\.triton\('(?P<name>\w+)', '''(?P<src>.*?)''', device_str='(?P<dev>\w+)'\)",
    re.S | re.M,
)
HEURISTIC = re.compile(r"@triton_heuristics\.(\w+)\(")

VENDOR_MARKS = ("gemm", "xmma", "cutlass", "cublas", "cudnn", "conv", "gemv", "splitk", "sm90_", "sm80_", "sm100_", "nvjet", "flash")


def source_hash(src: str) -> str:
    return hashlib.sha256(src.encode()).hexdigest()[:32]


@dataclass
class KernelDecl:
    var: str          # module global holding the kernel
    name: str         # kernel name (as CUPTI reports it)
    source: str       # the kernel's own source text
    heuristic: str    # pointwise, reduction, persistent_reduction, template, ...

    @property
    def hash(self) -> str:
        return source_hash(self.source)


def split(output_code: str) -> list[KernelDecl]:
    out = []
    for m in DECL.finditer(output_code):
        h = HEURISTIC.search(m["src"])
        out.append(KernelDecl(m["var"], m["name"], m["src"], h.group(1) if h else "jit"))
    return out


ATEN_LINE = re.compile(r"Original ATen: \[(?P<ops>[^\]]*)\]")


def aten_ops(output_code: str) -> dict[str, list[str]]:
    """Per kernel, the ATen ops Inductor says it was generated from: the
    "Original ATen: [...]" line of the comment block right above the
    kernel's declaration."""
    out = {}
    for m in DECL.finditer(output_code):
        lines = output_code[:m.start()].splitlines()
        ops: list[str] = []
        for line in reversed(lines):
            if not line.startswith("#"):
                break
            a = ATEN_LINE.search(line)
            if a:
                ops = [o.strip() for o in a["ops"].split(",") if o.strip()]
                break
        out[m["name"]] = ops
    return out


def output_modules(modules: list) -> list:
    """Of the modules Inductor loaded while compiling, its output code: the
    ones with a callable ``call``. Under max-autotune Inductor also loads one
    module per kernel it benchmarks, each defining a kernel object of the same
    name that never runs in the model, without the launch config and argument
    bytes of the one that runs (DESIGN-NOTES.md, "Only Inductor's output
    modules count"). All of them when none has ``call``."""
    out = [m for m in modules if callable(getattr(m, "call", None))]
    return out or list(modules)


def jit_kernels(module) -> list[KernelDecl]:
    """The @triton.jit kernels a standalone Triton file defines."""
    import inspect

    from triton.runtime.jit import JITFunction

    out = []
    for var, obj in vars(module).items():
        if isinstance(obj, JITFunction) and getattr(obj.fn, "__module__", None) == module.__name__:
            out.append(KernelDecl(var, obj.fn.__name__, inspect.getsource(obj.fn), "jit"))
    return out


def load_jit(name: str, source: str, module):
    """A @triton.jit kernel from source, with the standalone file's globals.
    Triton reads the function's source back through linecache, so linecache
    holds the lines a file of this text would give (kopt.static_text: the
    tokenizer's line breaks, not str.splitlines', which also breaks at form
    feeds, U+2028 and others), the ones gate 1 checked."""
    import linecache

    from .static_text import source_lines

    filename = f"<kopt candidate {name} {source_hash(source)}>"
    linecache.cache[filename] = (len(source), None, source_lines(source), filename)
    ns = dict(vars(module))
    exec(compile(source, filename, "exec"), ns)
    return ns[name]


def classify(name: str, triton_names: set[str]) -> str:
    """A profiled kernel's kind: "triton" (Inductor's or Helion's, in the
    output code: a candidate can take its place), "kopt" (a Triton kernel
    of koptmake's own ops, kopt_*: kopt::attention's, tuned by its op's own
    autotuner, not in the output code, so no candidate takes its place;
    its name would read as a vendor's, "flash"), "vendor" or "aten"."""
    if name in triton_names or name.startswith(("triton_", "_helion_")):
        return "triton"
    if name.startswith("kopt_"):
        return "kopt"
    low = name.lower()
    if any(k in low for k in VENDOR_MARKS):
        return "vendor"
    return "aten"


def config_dict(cfg) -> dict:
    d = dict(cfg.kwargs)
    d["num_warps"] = cfg.num_warps
    d["num_stages"] = cfg.num_stages
    if getattr(cfg, "maxnreg", None):
        d["maxnreg"] = int(cfg.maxnreg)
    return d


def current_config(kernel) -> dict | None:
    launchers = getattr(kernel, "launchers", None) if kernel is not None else None
    if launchers:
        return config_dict(launchers[0].config)
    return None


def load_kernel(name: str, source: str, tag: str, config: dict | None = None):
    """A fresh kernel object from source. ``tag`` makes the text unique so
    that Inductor's kernel cache does not hand back a shared object.

    With ``config``, the kernel is built at that launch config alone
    (force_config). Inductor's own load compiles every config its heuristic
    lists before any is pinned (several under max-autotune), and an edited
    source is a new key in Triton's cache: each point of a screen with a
    source knob paid for all of them, to throw them away."""
    text = tagged(source, tag)
    if config is not None and not _uncompiled_broken:
        obj = _uncompiled(name, text)
        if obj is not None:
            try:
                force_config(obj, config)
                return obj
            except (AttributeError, TypeError, KeyError) as exc:
                # this torch's autotuner wants what its precompile sets up:
                # Inductor's load from now on, said once in the worker's log
                _uncompiled_broken.append(repr(exc))
                print(f"kopt: a kernel loaded without Inductor's precompile could not be pinned ({exc!r}); "
                      "loading kernels Inductor's way", file=sys.stderr)
    from torch._inductor import config as ind
    from torch._inductor.codecache import PyCodeCache

    mod_src = (
        "from torch._inductor.async_compile import AsyncCompile\n"
        "async_compile = AsyncCompile()\n"
        f"{name} = async_compile.triton({name!r}, {text!r}, device_str='cuda')\n"
        "async_compile.wait(globals())\n"
        "del async_compile\n"
    )
    # in this process: a kernel built in Inductor's compile pool comes back
    # without its Python function, and then cannot take another config
    # (DESIGN-NOTES.md, "Candidate kernels are built in the worker's own
    # process")
    with ind.patch(compile_threads=1):
        mod = PyCodeCache.load(mod_src)
    obj = getattr(mod, name)
    if config is not None:
        force_config(obj, config)
    return obj


def tagged(source: str, tag: str) -> str:
    """The kernel's module text with a line naming its load: distinct texts
    are distinct modules to Inductor's code cache (Triton's cache keys on
    the function alone, so the tag does not split its entries)."""
    return source.rstrip("\n") + f"\n# kopt variant: {tag}\n"


UNCOMPILED_NEEDS = ("_precompile_config", "_make_launchers", "launchers")
_uncompiled_broken: list = []  # why the load without precompile failed in this process, once


def _uncompiled(name: str, text: str):
    """The kernel's autotuner from its module text, nothing compiled: what
    torch 2.11's AsyncCompile.triton does before its precompile (the
    ptxas and libdevice paths set, the module loaded, the compile info
    cleared). None where this torch lacks one of those steps: the caller
    then loads it Inductor's way."""
    try:
        from torch._inductor.codecache import PyCodeCache
        from torch._inductor.runtime import compile_tasks
    except ImportError:
        return None
    for step in ("_set_triton_ptxas_path", "_set_triton_libdevice_path"):
        f = getattr(compile_tasks, step, None)
        if f is not None:
            f()
    obj = getattr(PyCodeCache.load(text), name, None)
    if obj is None or not all(hasattr(obj, a) for a in UNCOMPILED_NEEDS):
        return None
    if hasattr(obj, "set_compile_info"):
        obj.set_compile_info(None, False)
    return obj


def force_config(kernel, config: dict) -> None:
    """Pins one launch config (private API of torch 2.11's CachingAutotuner).
    Besides the kernel's constexprs (the block sizes), num_warps and
    num_stages, a config may set ``maxnreg``, a compile option of Triton 3.6
    that triton.Config carries (a register budget per thread).

    The config is marked as coordinate descent's own finding: a kernel
    compiled under max-autotune carries ``coordinate_descent_tuning`` in
    its inductor_meta, and CachingAutotuner.run tunes a pinned config that
    lacks the mark at its first launch, so that a screen would time, the
    gates judge and a deployment run whatever the tuner moved it to, not
    the config chosen (and pay for the tuner's compiles each time)."""
    from .static_config import check_launch
    from .static_lists import Reject

    try:  # gate 1's rule for a config (kopt.static_config), held wherever one is pinned
        check_launch(config, set(getattr(getattr(kernel, "fn", None), "arg_names", None) or ()), inductor=True)
    except Reject as e:
        raise ValueError(str(e)) from None
    tc = triton_config(config)
    tc.found_by_coordesc = True
    t0 = time.perf_counter()
    with triton_compiles() as seen:
        kernel.compile_results = [kernel._precompile_config(tc)]
    t1 = time.perf_counter()
    kernel.launchers = []
    kernel._make_launchers()
    # where a load's time went (a screen's rows carry it): Triton's compile
    # or its cache's read, and the launchers' build; whether Triton read its
    # cache, and the key it looked up
    kernel.kopt_load_parts = {"compile_s": round(t1 - t0, 4), "launchers_s": round(time.perf_counter() - t1, 4)}
    kernel.kopt_triton_key = seen[-1] if seen else None
    if seen:
        kernel.kopt_load_parts["cache_hit"] = seen[-1]["cache_hit"]


def _short(text: str, most: int = 160) -> str:
    """text, its middle left out past most characters (paths differ at
    their ends: extern_libs' libdevice)"""
    return text if len(text) <= most else text[:most // 3] + "..." + text[-(most - most // 3 - 3):]


def _key_parts(target) -> dict:
    """The parts of Triton's cache key that neither the source nor the
    metadata holds, each as a short hash where this Triton has it: its
    own version key (triton_key), the backend's hash (the ptxas version
    and the arch) and the environment variables that invalidate the
    cache. Two processes whose keys differ in none of source, metadata
    and these differ where Triton's key reads something else."""
    out: dict = {}

    def short(v) -> str:
        return hashlib.sha256(repr(v).encode()).hexdigest()[:12]

    try:
        from triton.compiler import compiler as cc
    except ImportError:
        return out
    if getattr(cc, "triton_key", None) is not None:
        try:
            out["key.triton_key"] = short(cc.triton_key())
        except Exception as e:  # a Triton whose function takes arguments
            out["key.triton_key"] = type(e).__name__
    envf = getattr(cc, "get_cache_invalidating_env_vars", None)
    if envf is None:
        try:
            from triton import knobs
            envf = getattr(knobs, "get_cache_invalidating_env_vars", None)
        except ImportError:
            envf = None
    if envf is not None:
        try:
            env = envf()
            out["key.env"] = short(sorted(env.items()) if isinstance(env, dict) else env)
            out["key.env_names"] = ",".join(sorted(env)) if isinstance(env, dict) else ""
        except Exception as e:
            out["key.env"] = type(e).__name__
    mk = getattr(cc, "make_backend", None)
    if mk is not None and target is not None:
        try:
            from triton.backends.compiler import GPUTarget
            t = target if isinstance(target, GPUTarget) else GPUTarget(*target)
            out["key.backend"] = short(mk(t).hash())
        except Exception as e:
            out["key.backend"] = type(e).__name__
    return out


class triton_compiles:
    """Context manager: the Triton compiles inside it, as a list of
    {"cache_hit", "hash", "src", "meta"} (Triton's compilation listener,
    knobs.compilation.listener of Triton 3.4 and later: whether its cache
    answered, the key's hash, the source's part of the key, and the
    metadata, which holds the compile options and the environment's part).
    An empty list where this Triton has no listener."""

    def __enter__(self) -> list:
        self.seen: list = []
        try:
            from triton import knobs
            self.comp = knobs.compilation
            self.old = self.comp.listener
        except (ImportError, AttributeError):
            self.comp = None
            return self.seen

        def listener(*, src, metadata, metadata_group, times, cache_hit):
            try:
                src_key = src.hash()
            except Exception:  # an IR source, or a Triton whose source hashes otherwise
                src_key = ""
            meta = dict(metadata) if isinstance(metadata, dict) else {}
            # the key's parts that the metadata lacks: the ptxas and the
            # libdevice that compiled it (the backend's hash, extern_libs)
            meta["env.TRITON_PTXAS_PATH"] = os.environ.get("TRITON_PTXAS_PATH")
            meta.update(_key_parts(meta.get("target")))
            self.seen.append({"cache_hit": bool(cache_hit), "hash": str(meta.pop("hash", "")), "src": src_key,
                              "meta": {k: _short(repr(v)) for k, v in sorted(meta.items())}})
            if self.old is not None:
                self.old(src=src, metadata=metadata, metadata_group=metadata_group, times=times,
                         cache_hit=cache_hit)

        self.comp.listener = listener
        return self.seen

    def __exit__(self, *exc) -> None:
        if self.comp is not None:
            self.comp.listener = self.old


def key_difference(ahead: dict | None, own: dict | None, most: int = 8) -> dict | None:
    """Why a point a compile child built ahead was not in Triton's cache
    for the worker: the two compiles' keys side by side (whether the
    sources' parts agree, the metadata fields that differ), or, where the
    keys agree, same_key (the entry was not where the worker looked). None
    where either side is unknown or the cache answered."""
    if not ahead or not own or own.get("cache_hit"):
        return None
    if ahead.get("hash") == own.get("hash"):
        return {"same_key": True}
    a, o = ahead.get("meta") or {}, own.get("meta") or {}
    diff = {k: [a.get(k), o.get(k)] for k in sorted(set(a) | set(o)) if a.get(k) != o.get(k)}
    return {"same_src": ahead.get("src") == own.get("src"), "fields": dict(list(diff.items())[:most]),
            "more": max(0, len(diff) - most)}


def triton_config(config: dict):
    """A launch config as a triton.Config"""
    import triton

    cfg = dict(config)
    warps = int(cfg.pop("num_warps", 4))
    stages = int(cfg.pop("num_stages", 1))
    maxnreg = cfg.pop("maxnreg", None)
    return triton.Config(cfg, num_warps=warps, num_stages=stages, maxnreg=int(maxnreg) if maxnreg else None)


def compile_only(name: str, source: str, config: dict) -> dict | None:
    """Compiles a kernel at one launch config into Triton's on-disk cache,
    loading nothing onto the GPU (a compile child of kopt.precompile): the
    same function text, constants and options as load_kernel's compile of
    that config, so that it finds the entry there. Returns the compile's
    key (triton_compiles), where this Triton says it."""
    obj = _uncompiled(name, tagged(source, "precompile"))
    if obj is None:
        raise RuntimeError("this torch lacks the steps of a load without Inductor's precompile")
    with triton_compiles() as seen:
        obj._precompile_config(triton_config(config))
    return seen[-1] if seen else None


class Swap:
    """Context manager: module global ``var`` replaced by ``kernel``."""

    def __init__(self, modules, var: str, kernel):
        self.targets = [m for m in modules if var in m.__dict__]
        self.var, self.kernel, self.saved = var, kernel, []

    def __enter__(self):
        self.saved = [m.__dict__[self.var] for m in self.targets]
        for m in self.targets:
            m.__dict__[self.var] = self.kernel
        return self

    def __exit__(self, *exc):
        for m, k in zip(self.targets, self.saved):
            m.__dict__[self.var] = k
        return False


# An SM's limits where torch does not say (Hopper's: H100, H200)
SM_LIMITS = {"regs": 65536, "threads": 2048, "shared": 233472, "blocks": 32}
REG_UNIT = 256        # registers are given to a warp in units of this many
SHARED_RESERVED = 1024  # bytes the driver keeps per block (sm80 and later)


def sm_limits(props) -> dict:
    """An SM's registers, threads, shared memory and blocks from torch's
    device properties, Hopper's where an attribute is missing."""
    out = dict(SM_LIMITS)
    for key, attr in (("regs", "regs_per_multiprocessor"), ("threads", "max_threads_per_multi_processor"),
                      ("shared", "shared_memory_per_multiprocessor")):
        v = getattr(props, attr, None)
        if isinstance(v, int) and v > 0:
            out[key] = v
    return out


def occupancy(n_regs, num_warps, shared, limits: dict | None = None) -> float | None:
    """The warps an SM holds of a kernel's blocks over the most it holds,
    0..1, from its registers per thread, warps per block and shared memory
    per block; None where registers or warps are unknown."""
    lim = limits or SM_LIMITS
    if not isinstance(n_regs, int) or not isinstance(num_warps, int) or n_regs <= 0 or num_warps <= 0:
        return None
    max_warps = lim["threads"] // 32
    per_warp = -(-n_regs * 32 // REG_UNIT) * REG_UNIT
    blocks = min(lim["blocks"], max_warps // num_warps, (lim["regs"] // per_warp) // num_warps)
    if isinstance(shared, int) and shared > 0:
        blocks = min(blocks, lim["shared"] // (shared + SHARED_RESERVED))
    return max(blocks, 0) * num_warps / max_warps


def _int(v):
    try:
        return int(v) if v is not None else None
    except (TypeError, ValueError):
        return None


def _compiled(kernel):
    """The objects that carry a kernel's compile metadata, most direct
    first: Inductor's launcher and its CompiledKernel, or the last
    CompiledKernel a @triton.jit function built."""
    out = []
    for launcher in (getattr(kernel, "launchers", None) or [])[:1]:
        out.append(launcher)
    for res in (getattr(kernel, "compile_results", None) or [])[:1]:
        out.append(getattr(res, "kernel", None))
    caches = getattr(kernel, "device_caches", None)
    if caches:
        try:
            for entry in caches.values():
                cache = entry[0] if isinstance(entry, tuple) else entry
                if isinstance(cache, dict) and cache:
                    out.append(list(cache.values())[-1])
        except Exception:
            pass
    return [o for o in out if o is not None]


def compile_meta(kernel, limits: dict | None = None) -> dict:
    """A compiled kernel's registers per thread, registers spilled, warps,
    shared memory per block and the occupancy they allow (Triton's
    CompiledKernel: n_regs, n_spills, metadata.num_warps, shared; Inductor's
    launcher carries them too). Nothing is compiled; what cannot be read is
    None."""
    meta = {"n_regs": None, "n_spills": None, "num_warps": None, "shared_bytes": None}
    for o in _compiled(kernel):
        md = getattr(o, "metadata", None)
        cfg = getattr(o, "config", None)
        for key, val in (("n_regs", lambda: getattr(o, "n_regs", None)),
                         ("n_spills", lambda: getattr(o, "n_spills", None)),
                         ("num_warps", lambda: getattr(md, "num_warps", None) or getattr(cfg, "num_warps", None)),
                         ("shared_bytes", lambda: getattr(o, "shared", None) if getattr(o, "shared", None) is not None
                          else getattr(md, "shared", None))):
            if meta[key] is None:
                try:
                    meta[key] = _int(val())
                except Exception:
                    meta[key] = None
    meta["occupancy"] = occupancy(meta["n_regs"], meta["num_warps"], meta["shared_bytes"], limits)
    return meta
