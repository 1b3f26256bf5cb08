"""Compiling a problem with torch.compile and catching Inductor's output.

Every output module Inductor loads goes through
``PyCodeCache.load_by_key_path`` (fresh compile and FX-graph-cache hit
alike); wrapping it catches the live modules, whose ``__file__`` is the
output code and whose globals are the kernels.
"""

from __future__ import annotations

import contextlib
import os

import torch

from . import compile_time as CT
from . import graphcopy
from . import graphkeys as GK
from . import helion
from . import kernels as K
from . import rewrites
from . import tplcut
from . import tplthreads
from . import tunecache
from .problem import Compiled, Problem


@contextlib.contextmanager
def on_output_module(fn):
    """Calls fn(module) on each output module Inductor loads meanwhile."""
    from torch._inductor.codecache import PyCodeCache

    orig = PyCodeCache.__dict__["load_by_key_path"]
    bound = PyCodeCache.load_by_key_path

    def load_by_key_path(*args, **kwargs):
        mod = bound(*args, **kwargs)
        fn(mod)
        return mod

    PyCodeCache.load_by_key_path = staticmethod(load_by_key_path)
    try:
        yield
    finally:
        PyCodeCache.load_by_key_path = orig


def catch_output_modules(sink: list):
    return on_output_module(lambda mod: mod in sink or sink.append(mod))


@contextlib.contextmanager
def aten_fallbacks(ops: list[str]):
    """Keeps the named ATen ops out of Inductor (an implementation-space choice)."""
    if not ops:
        yield
        return
    from torch._functorch import config as fconfig
    from torch._inductor import config, lowering

    # the compile caches do not key on the lowering table: an entry of the
    # same graph compiled without the fallbacks would come back
    no_caches = contextlib.ExitStack()
    no_caches.enter_context(config.patch(fx_graph_cache=False, fx_graph_remote_cache=False))
    if hasattr(fconfig, "enable_autograd_cache"):
        no_caches.enter_context(fconfig.patch(enable_autograd_cache=False))
    # Inductor decomposes some ops before lowering (aten._softmax into
    # prepare_softmax_online, exp, sum): a fallback lowering alone never sees
    # them, so they leave its decomposition table for the duration too
    # (both the table and the one select_decomp_table() hands compile_fx,
    # a cached copy with the random-op decompositions added)
    tables = []
    try:
        from torch._inductor import decomposition as idecomp
        tables = [idecomp.decompositions]
        sel = idecomp.select_decomp_table()
        if sel is not idecomp.decompositions:
            tables.append(sel)
    except (ImportError, AttributeError):
        pass
    saved, saved_decomps = {}, []
    try:
        for spec in ops:
            name = spec.removeprefix("aten.")
            packet = getattr(torch.ops.aten, name.split(".")[0])
            overloads = [getattr(packet, o) for o in packet.overloads()]
            for op in overloads:
                saved[op] = lowering.lowerings.get(op)
                lowering.lowerings[op] = lowering.fallback_handler(op, add_to_fallback_set=False)
                for t in tables:
                    if op in t:
                        saved_decomps.append((t, op, t.pop(op)))
        yield
    finally:
        no_caches.close()
        for op, low in saved.items():
            if low is None:
                lowering.lowerings.pop(op, None)
            else:
                lowering.lowerings[op] = low
        for t, op, fn in saved_decomps:
            t[op] = fn


def own_frame(model):
    """A shallow copy of model (the same parameters, buffers and
    submodules) whose forward is a code object of its own. Dynamo keeps
    what it compiled on the code object it traced: variants of one model
    compiled side by side were entries of one cache, and each call went
    through the guards of the entries before its own (level 2's 14, a
    150 us call: 18.1x over the default compile in the race, 22.3x each
    compiled alone), and two equal backends shared an entry. With a frame
    of its own, each compiled variant is timed as a user's process, which
    holds one, runs it. The copy's code is the same, so its graph, and
    Inductor's cache key for it, are the model's."""
    import copy
    import types

    try:
        fwd = vars(type(model)).get("forward") or type(model).forward
    except AttributeError:
        fwd = None
    if not isinstance(fwd, types.FunctionType) or isinstance(model, torch.jit.ScriptModule):
        return model  # a forward that is not Python code (a scripted module's): as it is
    f = types.FunctionType(fwd.__code__.replace(), fwd.__globals__, fwd.__name__, fwd.__defaults__,
                           fwd.__closure__)
    f.__kwdefaults__ = fwd.__kwdefaults__
    f.__qualname__ = fwd.__qualname__
    own = copy.copy(model)
    own.forward = types.MethodType(f, own)
    return own


def torch_compiled(model, mode, options: dict, own: dict):
    """torch.compile on model: with koptmake's rewrites (own), a backend of
    its own (two variants whose Inductor options are equal, two rewrites
    on top of max-autotune, are two backends); else Inductor's, with mode
    or options.

    dynamic=False: static code for the inputs' own sizes, always. Left to
    torch (None), a file compiled before at other sizes, in this process
    or one that shares the compile cache (a model served at several
    shapes: its shapes' captures, profiles and stitches), comes out with
    symbolic sizes (Dynamo's automatic dynamic shapes, and its profile of
    them kept in the cache): kernels that are not the ones a deployment
    compiles per shape (kopt.deploy, dynamic=False), which matched none of
    them there, and a stitch that put a winner on another text than the
    one verified."""
    if own:
        return torch.compile(model, backend=rewriting_backend(options, own), dynamic=False)
    return torch.compile(model, mode=mode, options=options or None, dynamic=False)


def compile_problem(problem: Problem, variant: dict, reset: bool = True) -> Compiled:
    """Compiles problem under variant. reset=False keeps what Dynamo compiled
    before (other variants of the same model stay usable side by side)."""
    if reset:
        torch._dynamo.reset()
    torch.backends.cudnn.benchmark = bool(variant.get("cudnn_benchmark", False))
    if problem.kind == "helion":
        return helion.compile_problem(problem)
    if problem.kind == "triton":
        # a standalone Triton file is its own output code: nothing to compile
        c = Compiled(problem, variant, problem.fn)
        c.modules = [problem.module]
        c.decls = K.jit_kernels(problem.module)
        with open(problem.path) as f:
            c.output_code = f.read()
        return c
    from torch._inductor import list_mode_options

    mode, options, own = compile_settings(variant, list_mode_options)
    unknown = [k for k in options if not known_option(k)]
    if unknown:
        raise ValueError(f"unknown Inductor option(s) {', '.join(sorted(unknown))} in torch {torch.__version__}")
    compiled = torch_compiled(own_frame(problem.model), mode, options, own)
    c = Compiled(problem, variant, compiled)
    inputs = problem.inputs(0)
    # (the rewrites are applied where Inductor compiles: rewriting_backend)
    label = f"{os.path.basename(problem.path)} ({mode or 'default'})"
    GK.take()   # (keys another compile of this process looked up)
    with CT.measured(c.phases, label), catch_output_modules(c.modules), \
            aten_fallbacks(list(variant.get("aten_fallback") or [])):
        c.run(inputs)
        torch.cuda.synchronize()
    c.graph_keys = GK.take()
    c.compile_s = c.phases["wall_s"]
    c.modules = K.output_modules(c.modules)
    codes = []
    for m in c.modules:
        path = getattr(m, "__file__", None)
        if path:
            with open(path) as f:
                codes.append(f.read())
    c.output_code = "\n# ---- next graph ----\n".join(codes)
    for code in codes:
        c.decls.extend(K.split(code))
    return c


def compile_hooks() -> None:
    """What a build's compiles run with, in the worker and in every child
    that compiles its graphs again (memcheck_child.py): max-autotune's
    template choices compiled in this process (tplthreads.py), a hopeless
    one timed by one call (tplcut.py), kernels from the graph cache with
    coordinate descent's cached configs (tunecache.py), the graph cache's
    keys recorded (graphkeys.py), CUDA graphs' inputs copied by plain
    copies (graphcopy.py)."""
    tplthreads.install()
    tplcut.install()
    tunecache.install()
    GK.install()
    graphcopy.install()


def compile_settings(variant: dict, mode_options) -> tuple:
    """(mode, Inductor's options, koptmake's rewrites) that torch.compile
    gets for variant; mode_options(mode) gives a mode's options
    (torch._inductor.list_mode_options). torch.compile takes a mode or
    options, never both: where the variant needs options, its mode becomes
    them (max-autotune-no-cudagraphs: max_autotune and
    coordinate_descent_tuning) with its own set on top."""
    mode = variant.get("mode") or None
    options, own = rewrites.split(dict(variant.get("options") or {}))
    if variant.get("aten_fallback"):
        # torch.compile wrappers with equal options are one backend to Dynamo,
        # which would hand this variant another variant's compiled code (seen
        # in a race beside the default variant); and Inductor's graph cache
        # does not key on the lowering table. (A rewrite's variant has a
        # backend of its own, and the cache keys on what the rewrites do:
        # rewrites.applied.)
        options["fx_graph_cache"] = False
    if mode and (options or own):
        # (a rewrite's variant compiles through a backend of its own, which
        # takes options, not a mode)
        options = {**mode_options(mode), **options}
        mode = None
    return mode, options, own


def rewriting_backend(options: dict, own: dict):
    """A Dynamo backend: Inductor with options set and koptmake's rewrites
    own (rewrites.py) in its decomposition tables."""
    from torch._inductor.compile_fx import compile_fx

    def backend(gm, example_inputs):
        with rewrites.applied(own):
            return compile_fx(gm, example_inputs, config_patches=options)
    return backend


def known_option(key: str) -> bool:
    """whether torch._inductor.config has this (dotted) name"""
    import torch._inductor.config as config

    obj = config
    for part in key.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def moved_bytes(args: list) -> int:
    """The bytes a kernel moves at least, from record_kernel_args' entry:
    each tensor argument once, an in_out one (read and written in place)
    twice."""
    return sum(a["bytes"] * (2 if a.get("in_out") else 1) for a in args)


def record_kernel_args(c: Compiled, inputs) -> dict:
    """Runs once with every Triton kernel's run() wrapped; returns, per kernel
    name, the tensor arguments of its first launch (shape, dtype, bytes;
    in_out where the kernel's parameter is an in_out_ptr: Inductor's buffer
    read and written in place, whose bytes move twice)."""
    seen: dict = {}
    objs = c.kernel_objects()
    saved = {}
    for name, k in objs.items():
        orig = k.run
        names = list(getattr(getattr(k, "fn", None), "arg_names", None) or [])

        def run(*args, _orig=orig, _name=name, _names=names, **kw):
            if _name not in seen:
                seen[_name] = [
                    {"shape": list(a.shape), "dtype": str(a.dtype).removeprefix("torch."),
                     "numel": a.numel(), "bytes": a.numel() * a.element_size(),
                     **({"in_out": True} if i < len(_names) and _names[i].startswith("in_out_ptr") else {})}
                    for i, a in enumerate(args) if isinstance(a, torch.Tensor)
                ]
            return _orig(*args, **kw)

        saved[name] = (k, orig)
        k.run = run
    try:
        c.run(inputs)
        torch.cuda.synchronize()
    finally:
        for k, orig in saved.values():
            try:
                del k.run
            except AttributeError:
                k.run = orig
    return seen
