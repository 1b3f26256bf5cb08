"""Where a compile's seconds went: Dynamo, Inductor, Triton, autotuning.

torch times its own compile in named spans (``dynamo_timed``), summed per
name in ``torch._dynamo.utils.compilation_time_metrics`` (name -> list of
seconds). A compile's phases are the difference of that table across the
compile, sorted into five parts that add up to its wall time:

- dynamo_s: tracing the Python frame (Dynamo's whole frame compile less
  the backend it calls);
- inductor_s: the backend's lowering and code generation (AOTAutograd,
  Inductor's passes, lowering, the wrapper's code), less what is counted
  below;
- triton_s: waiting for Triton kernels to compile (``async_compile.wait``)
  and templates' choices compiled ahead of their autotuning;
- autotune_s: timing candidates on the GPU: GEMM and convolution templates
  (``*_template_autotuning``), launch configs at a kernel's first run
  (``CachingAutotuner.benchmark_all_configs``) and coordinate descent;
- run_s: the rest of the first call (the kernels' own first launches, the
  host's loading of modules).

The spans nest (Dynamo's holds the backend's, which holds the waits and the
templates' tuning): each part takes what its span holds less the parts
inside it, so nothing counts twice. A span name torch does not have leaves
its part at 0 and its seconds in the next part out; ``spans`` keeps every
name that moved, for a reader who wants torch's own view.

A compile that is stopped (koptmake interrupted, a step's timeout) never
reaches the end where its phases are written: ``measured`` with a label
also writes a progress line to stderr (the worker's log) every so many
seconds ($KOPT_COMPILE_PROGRESS, default 30; 0: none), with the spans
that have finished so far (``progress_line``), so that the log says where
an unfinished compile's time was going; bench/beyond/costs.py reads the
last line of each.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import time

# span names (torch 2.6 to 2.11); the first name present is used
DYNAMO = ("_compile.compile_inner",)
BACKEND = ("OutputGraph.call_user_compiler", "backend_compile")
TRITON_WAIT = ("async_compile.wait",)
AUTOTUNE_RUN = ("CachingAutotuner.benchmark_all_configs", "CachingAutotuner.coordinate_descent_tuning")
TEMPLATE_TUNE = "_template_autotuning"
TEMPLATE_PRECOMPILE = "_template_precompiling"

PARTS = ("dynamo_s", "inductor_s", "triton_s", "autotune_s", "run_s")


def _table() -> dict:
    try:
        from torch._dynamo.utils import compilation_time_metrics
    except ImportError:
        return {}
    return {k: float(sum(v)) for k, v in compilation_time_metrics.items()}


def _sum(delta: dict, names) -> float:
    return sum(delta.get(n, 0.0) for n in names)


def _ending(delta: dict, suffix: str) -> float:
    return sum(v for k, v in delta.items() if k.endswith(suffix))


def phases(delta: dict, wall: float) -> dict:
    """The five parts of a compile from its span deltas (name -> seconds)
    and its wall time; each part at least 0, and they add up to wall
    (run_s takes what the spans do not hold)."""
    templ_tune = _ending(delta, TEMPLATE_TUNE)
    templ_pre = _ending(delta, TEMPLATE_PRECOMPILE)
    frame = _sum(delta, DYNAMO)
    backend = min(_sum(delta, BACKEND), frame) if frame else _sum(delta, BACKEND)
    wait = _sum(delta, TRITON_WAIT)
    run_tune = _sum(delta, AUTOTUNE_RUN)
    # inside the backend: template tuning and precompiling, the waits
    inner_tune = min(templ_tune, backend)
    inner_triton = min(wait + templ_pre, max(0.0, backend - inner_tune))
    out = {
        "dynamo_s": max(0.0, frame - backend),
        "inductor_s": max(0.0, backend - inner_tune - inner_triton),
        "triton_s": inner_triton,
        "autotune_s": inner_tune + run_tune,
    }
    spent = sum(out.values())
    if spent > wall:
        # spans of other threads (a pool's) can add up past the wall time:
        # scale the parts to it, keeping their proportions
        out = {k: v * wall / spent for k, v in out.items()}
        spent = wall
    out["run_s"] = max(0.0, wall - spent)
    return {k: round(out[k], 3) for k in PARTS}


def _delta(before: dict) -> dict:
    after = _table()
    return {k: v - before.get(k, 0.0) for k, v in after.items() if v - before.get(k, 0.0) > 1e-6}


PROGRESS = "kopt: compiling "


def progress_line(label: str, elapsed: float, delta: dict) -> str:
    """A compile's progress for the worker's log: its seconds so far and
    what its finished spans hold: templates' autotuning and precompiling,
    waits for Triton, launch configs tuned at first runs"""
    return (f"{PROGRESS}{label}: {elapsed:.0f} s so far; templates autotuned {_ending(delta, TEMPLATE_TUNE):.1f} s, "
            f"precompiled {_ending(delta, TEMPLATE_PRECOMPILE):.1f} s; "
            f"Triton waited for {_sum(delta, TRITON_WAIT):.1f} s; "
            f"launch configs tuned {_sum(delta, AUTOTUNE_RUN):.1f} s")


_PROGRESS_RE = re.compile(re.escape(PROGRESS) + r"(.+): (\d+) s so far; templates autotuned ([0-9.]+) s, "
                          r"precompiled ([0-9.]+) s; Triton waited for ([0-9.]+) s; launch configs tuned ([0-9.]+) s")


def parse_progress(line: str):
    """progress_line's label and its five figures as written (seconds so
    far, templates autotuned, precompiled, Triton's waits, launch configs
    tuned), or None for another line"""
    m = _PROGRESS_RE.fullmatch(line.rstrip("\n"))
    return (m.group(1), m.groups()[1:]) if m else None


def _every() -> float:
    try:
        return max(0.0, float(os.environ.get("KOPT_COMPILE_PROGRESS", "30")))
    except ValueError:
        return 30.0


def _reporter(label: str, before: dict, t0: float, every: float, stop: threading.Event) -> None:
    while not stop.wait(every):
        try:
            line = progress_line(label, time.perf_counter() - t0, _delta(before))
        except RuntimeError:  # the table grew while it was read: next time
            continue
        print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def measured(sink: dict, label: str | None = None):
    """Times the block and fills sink with its wall time ("wall_s"), its
    phases (PARTS) and the spans that moved ("spans", name -> seconds).
    With a label, a progress line goes to stderr every
    $KOPT_COMPILE_PROGRESS seconds while the block runs."""
    before = _table()
    t0 = time.perf_counter()
    every = _every() if label else 0.0
    stop = threading.Event()
    reporter = None
    if every > 0:
        reporter = threading.Thread(target=_reporter, args=(label, before, t0, every, stop), daemon=True)
        reporter.start()
    try:
        yield sink
    finally:
        stop.set()
        if reporter is not None:
            reporter.join()
        wall = time.perf_counter() - t0
        delta = _delta(before)
        sink["wall_s"] = round(wall, 3)
        sink.update(phases(delta, wall))
        sink["spans"] = {k: round(v, 3) for k, v in sorted(delta.items(), key=lambda kv: -kv[1])[:24]}
