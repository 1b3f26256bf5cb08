"""max-autotune's hopeless template choices timed by one call, not by many.

Inductor times every choice of a GEMM's or a convolution's template the
same way: a few calls to estimate, then as many as fit its budget, at
least one. A choice that is thousands of times slower than the best so far
costs that many seconds: on EfficientNetMBConv (level 3) at batch 10,
Triton's convolution template with GROUPS=672 ran its 5x5 depthwise
convolution in 2 to 3 s a call against cuDNN's 0.8 ms, and the 13 choices
took 304 s of the capture's 353 (bench/results/2026-12-05-h100-level3-
slices). The pick is the fastest choice; a choice whose one call already
takes CUT times the best time so far, and at least CUT_MS, is not it.

install() wraps AlgorithmSelectorCache.benchmark_choices (which keeps the
best time so far, per thread, while it runs), benchmark_choice (which
records each choice's time there) and Inductor's benchmarker's
benchmark_gpu: inside benchmark_choices, where a best is known, a choice is
first run once, timed with CUDA events, and where that call is over both
limits its time is the choice's time, which loses to the best; every other
choice is timed by Inductor's benchmark_gpu as before (one call more).
Outside benchmark_choices (coordinate descent, a kernel's own autotune)
nothing changes. A failure of the one call leaves the choice to Inductor's
timing. The choices, their order and the timings of the choices that can
win are Inductor's, so the pick is the same.
KOPT_TEMPLATE_CUT=0 leaves Inductor as it is. Installed where tplthreads is.
"""

from __future__ import annotations

import functools
import math
import os
import threading

from .tplthreads import autotunes_templates

CUT = 10.0   # a choice's one call over this many times the best so far ...
CUT_MS = 1.0  # ... and over this many milliseconds: its one call is its time

_local = threading.local()


def best() -> float | None:
    """The best time (ms) so far of the choices being timed on this thread;
    None outside benchmark_choices, inf before the first choice's time."""
    return getattr(_local, "best", None)


def time_once(fn) -> float:
    """One call of fn, in milliseconds, timed with CUDA events."""
    import torch

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    return float(start.elapsed_time(end))


def hopeless(once: float | None, so_far: float | None) -> bool:
    """Whether a choice whose one call took once (ms) cannot beat so_far:
    over CUT times it and over CUT_MS."""
    return (once is not None and so_far is not None and math.isfinite(so_far) and so_far > 0
            and once >= CUT_MS and once > CUT * so_far)


def wrap(selector_cls, bench, timer=None) -> bool:
    """Wraps selector_cls's benchmark_choices and benchmark_choice
    (classmethods) and bench's benchmark_gpu as the module says; timer
    (default time_once) times one call. True where they are wrapped (now
    or before), False where one is missing and nothing changed."""
    choices = vars(selector_cls).get("benchmark_choices")
    choice = vars(selector_cls).get("benchmark_choice")
    gpu = getattr(bench, "benchmark_gpu", None)
    if not isinstance(choices, classmethod) or not isinstance(choice, classmethod) or not callable(gpu):
        return False
    if getattr(choices.__func__, "kopt_cut", False):
        return True
    choices_fn, choice_fn = choices.__func__, choice.__func__
    once_of = timer or time_once

    @functools.wraps(choices_fn)
    def benchmark_choices(cls, *args, **kwargs):
        prev = best()
        _local.best = math.inf
        try:
            return choices_fn(cls, *args, **kwargs)
        finally:
            _local.best = prev

    @functools.wraps(choice_fn)
    def benchmark_choice(cls, *args, **kwargs):
        t = choice_fn(cls, *args, **kwargs)
        so_far = best()
        if so_far is not None and isinstance(t, (int, float)) and 0 < t < so_far:
            _local.best = float(t)
        return t

    @functools.wraps(gpu)
    def benchmark_gpu(fn, *args, **kwargs):
        so_far = best()
        if so_far is not None and math.isfinite(so_far):
            try:
                once = once_of(fn)
            except Exception:  # the choice's own timing says what is wrong
                once = None
            if hopeless(once, so_far):
                return once
        return gpu(fn, *args, **kwargs)

    benchmark_choices.kopt_cut = True
    setattr(selector_cls, "benchmark_choices", classmethod(benchmark_choices))
    setattr(selector_cls, "benchmark_choice", classmethod(benchmark_choice))
    bench.benchmark_gpu = benchmark_gpu
    return True


def install() -> bool:
    """Wraps Inductor's functions (wrap) unless KOPT_TEMPLATE_CUT is 0; True
    where they are wrapped."""
    if os.environ.get("KOPT_TEMPLATE_CUT", "1").strip() == "0":
        return False
    try:
        from torch._inductor import select_algorithm
        from torch._inductor.runtime import benchmarking
    except ImportError:
        return False
    selector = getattr(select_algorithm, "AlgorithmSelectorCache", None)
    bench = getattr(benchmarking, "benchmarker", None)
    return selector is not None and bench is not None and wrap(selector, bench)


def for_options(options: dict) -> bool:
    """install() where Inductor's options autotune templates
    (tplthreads.autotunes_templates); False, and nothing done, elsewhere."""
    return install() if autotunes_templates(options) else False
