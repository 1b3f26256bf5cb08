"""tests/runtime/test_kernels_load.py: how kopt.kernels builds a kernel at
one launch config (load_kernel with a config, force_config), on the CPU.

Test doubles stand in for torch 2.11's Inductor and Triton 3.6: a
CachingAutotuner that counts its compiles and runs coordinate descent on a
pinned config the way CachingAutotuner.run does (torch 2.11,
runtime/triton_heuristics.py: ``if not getattr(self.launchers[0].config,
"found_by_coordesc", False) and self.inductor_meta.get(
"coordinate_descent_tuning", False)``), PyCodeCache.load (a module text to a
module; AsyncCompile.triton's precompile compiles every config the
heuristic lists), compile_tasks and triton.Config. What is checked: a
kernel loaded with a config compiles that config alone, runs it as pinned
under max-autotune's inductor_meta (the tuner does not move it), and a torch
without the steps of the uncompiled load, or whose autotuner cannot be
pinned before its precompile, still gets the config pinned, Inductor's way.
Triton's compilation listener is a test double too (a cache keyed on the
function's text, the config and a compile option): a load says whether
the cache answered, a compile child's compile returns its key, and a miss
on a point compiled ahead names the option that differed. Needs no torch.
Prints TAP."""

import os
import re
import sys
import types

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

HEURISTIC_CONFIGS = 6  # what max-autotune's pointwise heuristic might list
compiled = []  # (kernel text id, config kwargs) per compile


class Config:  # triton.Config (a test double)
    def __init__(self, kwargs, num_warps=4, num_stages=1, maxnreg=None):
        self.kwargs, self.num_warps, self.num_stages, self.maxnreg = dict(kwargs), num_warps, num_stages, maxnreg


class Launcher:
    def __init__(self, cfg):
        self.config = cfg


class Result:
    def __init__(self, cfg):
        self.config = cfg

    def make_launcher(self):
        return Launcher(self.config)


class Autotuner:  # torch 2.11's CachingAutotuner (a test double)
    def __init__(self, text):
        self.text = text
        self.inductor_meta = {"coordinate_descent_tuning": "coordinate_descent_tuning': True" in text}
        self.configs = [Config({"XBLOCK": 64 << i}) for i in range(HEURISTIC_CONFIGS)]
        self.compile_results, self.launchers = [], []
        self.tuned = 0

    def set_compile_info(self, *a):
        pass

    def _precompile_config(self, cfg):
        compiled.append((id(self), dict(cfg.kwargs)))
        return Result(cfg)

    def _make_launchers(self):
        self.launchers = [r.make_launcher() for r in self.compile_results]

    def precompile(self, warm_cache_only=False):
        self.compile_results = [self._precompile_config(c) for c in self.configs]
        self._make_launchers()

    def run(self, *args, **kw):
        if not getattr(self.launchers[0].config, "found_by_coordesc", False) and \
                self.inductor_meta.get("coordinate_descent_tuning", False):
            self.tuned += 1
            moved = Config({"XBLOCK": 999})
            moved.found_by_coordesc = True
            self.launchers = [Launcher(moved)]
        return self.launchers[0].config


def load(text):  # PyCodeCache.load (a test double)
    m = re.search(r"async_compile\.triton\('(\w+)', (.*), device_str", text, re.S)
    mod = types.ModuleType("kopt_test_kernel")
    if m:  # Inductor's way: AsyncCompile.triton loads, then precompiles
        obj = Autotuner(eval(m.group(2)))
        obj.precompile()
        setattr(mod, m.group(1), obj)
    else:
        name = re.search(r"def (\w+)\(", text).group(1)
        setattr(mod, name, Autotuner(text))
    return mod


class Patch:
    def __init__(self, **kw):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


steps = []
fakes = {
    "triton": types.SimpleNamespace(Config=Config),
    "torch": types.ModuleType("torch"),
    "torch._inductor": types.ModuleType("torch._inductor"),
    "torch._inductor.codecache": types.SimpleNamespace(PyCodeCache=types.SimpleNamespace(load=load)),
    "torch._inductor.runtime": types.ModuleType("torch._inductor.runtime"),
    "torch._inductor.runtime.compile_tasks": types.SimpleNamespace(
        _set_triton_ptxas_path=lambda: steps.append("ptxas"),
        _set_triton_libdevice_path=lambda: steps.append("libdevice")),
}
fakes["torch._inductor"].config = types.SimpleNamespace(patch=Patch)
sys.modules.update(fakes)

from kopt import kernels as K  # noqa: E402

SRC = ("@triton_heuristics.pointwise(size_hints={'x': 1024}, inductor_meta={'coordinate_descent_tuning': True})\n"
       "@triton.jit\ndef triton_poi_fused_add_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n    pass\n")
CFG = {"XBLOCK": 128, "num_warps": 2, "num_stages": 1}

compiled.clear()
obj = K.load_kernel("triton_poi_fused_add_0", SRC, "screen a", CFG)
ok(len(compiled) == 1 and compiled[0][1] == {"XBLOCK": 128},
   "a kernel loaded at a config compiles that config alone, not the heuristic's list", compiled)
ok(steps == ["ptxas", "libdevice"], "... after the ptxas and libdevice paths are set, as Inductor's load does", steps)
ran = obj.run()
ok(obj.tuned == 0 and ran.kwargs == {"XBLOCK": 128} and ran.num_warps == 2,
   "under max-autotune's inductor_meta the pinned config runs as chosen: coordinate descent does not move it",
   (obj.tuned, ran.kwargs))
parts = getattr(obj, "kopt_load_parts", None)
ok(isinstance(parts, dict) and set(parts) == {"compile_s", "launchers_s"} and all(v >= 0 for v in parts.values()),
   "the load says where its time went: the compile and the launchers' build", parts)
other = K.load_kernel("triton_poi_fused_add_0", SRC, "screen b", CFG)
ok(other is not obj, "two tags, two kernel objects")

compiled.clear()
plain = K.load_kernel("triton_poi_fused_add_0", SRC, "cand 1")
ok(len(compiled) == HEURISTIC_CONFIGS, "without a config, Inductor's load: every config of the heuristic", len(compiled))
plain.launchers = plain.launchers[:1]
plain.run()
ok(plain.tuned == 1, "... and Inductor's own tuning, as in its compiled model", plain.tuned)

# a torch without the uncompiled load's steps: Inductor's load, then the pin
del sys.modules["torch._inductor.runtime.compile_tasks"]  # not a package: the import fails
compiled.clear()
old = K.load_kernel("triton_poi_fused_add_0", SRC, "screen c", CFG)
ok(len(compiled) == HEURISTIC_CONFIGS + 1 and compiled[-1][1] == {"XBLOCK": 128},
   "without compile_tasks: Inductor's load, then the config pinned", compiled)
ran = old.run()
ok(old.tuned == 0 and ran.kwargs == {"XBLOCK": 128}, "... and run as chosen", (old.tuned, ran.kwargs))
sys.modules["torch._inductor.runtime.compile_tasks"] = fakes["torch._inductor.runtime.compile_tasks"]

# an autotuner that cannot be pinned before Inductor's precompile (a torch
# whose launchers need what the precompile sets up): Inductor's load, and
# from then on only that
real_make = Autotuner._make_launchers


def needs_precompile(self):
    if not getattr(self, "precompiled", False):
        raise AttributeError("'Autotuner' object has no attribute '_reload_kernel' (a test double)")
    real_make(self)


real_pre = Autotuner.precompile


def precompile(self, warm_cache_only=False):
    self.precompiled = True
    real_pre(self, warm_cache_only)


Autotuner._make_launchers, Autotuner.precompile = needs_precompile, precompile
import io  # noqa: E402
err, sys.stderr = sys.stderr, io.StringIO()
compiled.clear()
fell = K.load_kernel("triton_poi_fused_add_0", SRC, "screen d", CFG)
said, sys.stderr = sys.stderr.getvalue(), err
ok(fell.run().kwargs == {"XBLOCK": 128} and len(compiled) == 1 + HEURISTIC_CONFIGS + 1,
   "an autotuner that cannot be pinned before its precompile: Inductor's load, then the pin", compiled)
ok("loading kernels Inductor's way" in said, "... said once in the worker's log", said)
compiled.clear()
K.load_kernel("triton_poi_fused_add_0", SRC, "screen e", CFG)
ok(len(compiled) == HEURISTIC_CONFIGS + 1, "... and from then on Inductor's load alone", len(compiled))
Autotuner._make_launchers, Autotuner.precompile = real_make, real_pre

# Triton's compilation listener (knobs.compilation.listener, Triton 3.4 and
# later; a test double): triton.compile tells it whether its cache answered
# and the key; the double's cache keys on the function's text without the
# load's tag line, the config, an option of the process and (as Triton's
# key, not its metadata) the environment variables that invalidate it
cache: dict = {}
option = {"enable_fp_fusion": True}
envs: dict = {}
fakes["triton"].knobs = types.SimpleNamespace(compilation=types.SimpleNamespace(listener=None))


def listened_compile(self, cfg):
    compiled.append((id(self), dict(cfg.kwargs)))
    fn = re.sub(r"\n# kopt variant: .*\n$", "\n", self.text)
    meta = {"num_warps": cfg.num_warps, **option}
    key = repr((fn, sorted(cfg.kwargs.items()), sorted(meta.items()), sorted(envs.items())))
    hit = key in cache
    cache[key] = True
    knobs = getattr(fakes["triton"], "knobs", None)
    listener = knobs.compilation.listener if knobs else None
    if listener:
        src = types.SimpleNamespace(hash=lambda: str(hash(fn)))
        listener(src=src, metadata={"hash": str(hash(key)), **meta}, metadata_group={}, times=None, cache_hit=hit)
    return Result(cfg)


Autotuner._precompile_config = listened_compile
K._uncompiled_broken.clear()  # the load without Inductor's precompile again
theirs = []
fakes["triton"].knobs.compilation.listener = lambda **kw: theirs.append(kw["cache_hit"])
first = K.load_kernel("triton_poi_fused_add_0", SRC, "screen f", {"XBLOCK": 16})
ok(first.kopt_load_parts.get("cache_hit") is False and first.kopt_triton_key["hash"],
   "a load says whether Triton's cache answered (a compile of its own here), and the key", first.kopt_load_parts)
ok(theirs == [False] and fakes["triton"].knobs.compilation.listener is not None and
   fakes["triton"].knobs.compilation.listener(cache_hit=True, src=None, metadata={}, metadata_group={}, times=None) is None
   and theirs == [False, True], "... a listener already there still hears the compile, and is there again after", theirs)
child = K.compile_only("triton_poi_fused_add_0", SRC, {"XBLOCK": 32})
ok(isinstance(child, dict) and child["cache_hit"] is False and child["meta"].get("enable_fp_fusion") == "True",
   "a compile child's compile returns its key, with the options", child)
again = K.load_kernel("triton_poi_fused_add_0", SRC, "screen g", {"XBLOCK": 32})
ok(again.kopt_load_parts.get("cache_hit") is True and again.kopt_triton_key["hash"] == child["hash"],
   "the worker's load of a point the child compiled: a cache hit, on the child's key", again.kopt_load_parts)
ok(K.key_difference(child, again.kopt_triton_key) is None, "... and nothing to explain")
child = K.compile_only("triton_poi_fused_add_0", SRC, {"XBLOCK": 8})
option["enable_fp_fusion"] = False  # the worker compiles under another option than the child
missed = K.load_kernel("triton_poi_fused_add_0", SRC, "screen h", {"XBLOCK": 8})
why = K.key_difference(child, missed.kopt_triton_key)
ok(missed.kopt_load_parts.get("cache_hit") is False and why == {
    "same_src": True, "fields": {"enable_fp_fusion": ["True", "False"]}, "more": 0},
   "a point compiled ahead under another option: a miss, and the field that differs", why)
ok(K.key_difference({**missed.kopt_triton_key}, missed.kopt_triton_key) == {"same_key": True},
   "a miss on the child's own key: the entry was not where the worker looked")
# the key's parts that neither the source nor the metadata holds (a test
# double of triton.compiler.compiler): a variable that invalidates the
# cache, set in the worker and not in the child
option["enable_fp_fusion"] = True
cc = types.ModuleType("triton.compiler.compiler")
cc.triton_key = lambda: "3.6.0-abc"
cc.get_cache_invalidating_env_vars = lambda: dict(envs)
fakes["triton"].compiler = types.ModuleType("triton.compiler")
fakes["triton"].compiler.compiler = cc
sys.modules.update({"triton.compiler": fakes["triton"].compiler, "triton.compiler.compiler": cc})
child = K.compile_only("triton_poi_fused_add_0", SRC, {"XBLOCK": 4})
envs["TRITON_DEFAULT_FP_FUSION"] = "0"
missed = K.load_kernel("triton_poi_fused_add_0", SRC, "screen j", {"XBLOCK": 4})
why = K.key_difference(child, missed.kopt_triton_key)
ok(missed.kopt_load_parts.get("cache_hit") is False and why and why["same_src"] and
   set(why["fields"]) == {"key.env", "key.env_names"} and "key.triton_key" in child["meta"],
   "a point compiled ahead under another cache-invalidating variable: the key's environment part differs, "
   "and its names say which", why)
envs.clear()
del sys.modules["triton.compiler"], sys.modules["triton.compiler.compiler"]
del fakes["triton"].knobs  # a Triton before 3.4
plain_parts = K.load_kernel("triton_poi_fused_add_0", SRC, "screen i", {"XBLOCK": 2048}).kopt_load_parts
ok("cache_hit" not in plain_parts, "a Triton without the listener: the load's parts alone", plain_parts)

done()
