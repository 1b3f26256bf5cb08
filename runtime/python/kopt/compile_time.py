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
"""

from __future__ import annotations

import contextlib
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


def phases(delta: dict, wall: float) -> dict:
    """The five parts of a compile from its span deltas (name -> seconds)
    and its wall time; each part at least 0, and they add up to wall
    (run_s takes what the spans do not hold)."""
    templ_tune = sum(v for k, v in delta.items() if k.endswith(TEMPLATE_TUNE))
    templ_pre = sum(v for k, v in delta.items() if k.endswith(TEMPLATE_PRECOMPILE))
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


@contextlib.contextmanager
def measured(sink: dict):
    """Times the block and fills sink with its wall time ("wall_s"), its
    phases (PARTS) and the spans that moved ("spans", name -> seconds)."""
    before = _table()
    t0 = time.perf_counter()
    try:
        yield sink
    finally:
        wall = time.perf_counter() - t0
        after = _table()
        delta = {k: v - before.get(k, 0.0) for k, v in after.items() if v - before.get(k, 0.0) > 1e-6}
        sink["wall_s"] = round(wall, 3)
        sink.update(phases(delta, wall))
        sink["spans"] = {k: round(v, 3) for k, v in sorted(delta.items(), key=lambda kv: -kv[1])[:24]}
