"""max-autotune's template choices compiled in threads of this process.

Inductor precompiles a GEMM's or a convolution's template choices while it
lowers the graph, and times them later, when its scheduler picks one. Where
its compile pool is up (a network's tracing outlasts the pool's start), it
sends each choice to the pool's child processes, which compile it into
Triton's on-disk cache and hand nothing back; the timing then compiles the
choice in this process and expects to find it there. It finds none of
them (most likely because the children key their entries on the ptxas and
libdevice they saw when they started, and Inductor sets torch's own in
this process only when it first compiles; precompile.py says how Triton's
key is made), so every choice is compiled again, one at a time, inside
the timing. On ResNet-101 at batch 10, max-autotune-no-cudagraphs did not
finish in 300 s on an H200 that way; with the choices compiled in threads
here, the objects the timing runs are the ones compiled, and the whole
compile took 140 s (bench/results/2026-12-05-template-threads).

install() wraps AlgorithmSelectorCache.make_precompile_fn so that, while it
runs on a thread (it submits the choices), AsyncCompile.use_process_pool
answers False to that thread alone: the choices go to Inductor's own
thread pool for precompiles. The choices, their compile options and their
timings are Inductor's; every other kernel still compiles in the pool.
Where torch has neither function, nothing is wrapped.
KOPT_TEMPLATE_THREADS=0 leaves Inductor as it is. Workers install it
before every compile; kopt.backend only for a variant whose options
autotune templates (for_options), where a first call without Inductor's
cache would tune them.
"""

from __future__ import annotations

import functools
import os
import threading

_local = threading.local()


def submitting() -> bool:
    """True on a thread inside the wrapped make_precompile_fn"""
    return getattr(_local, "depth", 0) > 0


def wrap(selector_cls, async_cls) -> bool:
    """Wraps selector_cls.make_precompile_fn and async_cls.use_process_pool
    (a classmethod) as the module says; True where they are wrapped (now or
    before), False where either is missing and nothing changed."""
    make = vars(selector_cls).get("make_precompile_fn")
    pool = vars(async_cls).get("use_process_pool")
    if make is None or not isinstance(pool, classmethod):
        return False
    if getattr(make, "kopt_threads", False):
        return True
    pool_fn = pool.__func__

    @functools.wraps(pool_fn)
    def use_process_pool(cls):
        return False if submitting() else pool_fn(cls)

    @functools.wraps(make)
    def make_precompile_fn(self, *args, **kwargs):
        _local.depth = getattr(_local, "depth", 0) + 1
        try:
            return make(self, *args, **kwargs)
        finally:
            _local.depth -= 1

    make_precompile_fn.kopt_threads = True
    setattr(async_cls, "use_process_pool", classmethod(use_process_pool))
    setattr(selector_cls, "make_precompile_fn", make_precompile_fn)
    return True


def install() -> bool:
    """Wraps Inductor's functions (wrap) unless KOPT_TEMPLATE_THREADS is 0;
    True where they are wrapped."""
    if os.environ.get("KOPT_TEMPLATE_THREADS", "1").strip() == "0":
        return False
    try:
        from torch._inductor import select_algorithm
        from torch._inductor.async_compile import AsyncCompile
    except ImportError:
        return False
    selector = getattr(select_algorithm, "AlgorithmSelectorCache", None)
    return selector is not None and wrap(selector, AsyncCompile)


def autotunes_templates(options: dict) -> bool:
    """Whether Inductor's options autotune templates (max_autotune or
    max_autotune_gemm)"""
    return bool(options.get("max_autotune") or options.get("max_autotune_gemm"))


def for_options(options: dict) -> bool:
    """install() where Inductor's options autotune templates; False, and
    nothing done, where they do not."""
    return install() if autotunes_templates(options) else False
