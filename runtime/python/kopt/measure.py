"""Timing on the GPU: CUPTI kernel records, CUDA events, L2 flushes.

Each timed call is bracketed by CUPTI timestamps taken after a device
synchronize, so the records of one call are those that start inside its
window; the L2 flush before it ends before the window opens.
"""

from __future__ import annotations

import json
import os
import statistics
from dataclasses import dataclass, field
from typing import Callable

import torch

from . import records as R

try:
    import _kopt_cupti as cupti  # provided by kopt-worker
except ImportError:  # plain Python: no kernel records
    cupti = None

L2_FLUSH_BYTES = 256 << 20


class Flusher:
    def __init__(self):
        self.buf = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")

    def __call__(self):
        self.buf.zero_()


@dataclass
class Call:
    event_ns: float                      # CUDA-event time of the call
    t0: int                              # CUPTI window
    t1: int
    records: list = field(default_factory=list)   # (name, start, end, ...)

    @property
    def span_ns(self) -> float:
        return R.span_ns(self.records)

    @property
    def kernel_ns(self) -> float:
        return R.busy_ns(self.records)


def need_cupti():
    if cupti is None:
        raise RuntimeError("kernel records need CUPTI: run inside kopt-worker")
    st = cupti.status()
    if not st["enabled"]:
        raise RuntimeError(f"CUPTI is not enabled: {st['error']}")


def drain():
    if cupti is not None:
        cupti.take()


def timed_calls(fns: list[Callable], n: int, flush: Flusher) -> list[list[Call]]:
    """Runs each fn n times, interleaved (fn0, fn1, ..., fn0, fn1, ...), the L2
    flushed before each call; returns, per fn, its calls with their records."""
    need_cupti()
    out: list[list[Call]] = [[] for _ in fns]
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    drain()
    for _ in range(n):
        for i, fn in enumerate(fns):
            flush()
            torch.cuda.synchronize()
            t0 = cupti.timestamp()
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            t1 = cupti.timestamp()
            out[i].append(Call(start.elapsed_time(end) * 1e6, t0, t1))
    every = [c for calls in out for c in calls]
    for c, recs in zip(every, R.assign([(c.t0, c.t1) for c in every], cupti.take())):
        c.records = recs
    return out


def median(xs):
    return float(statistics.median(xs)) if xs else 0.0


def copy_bandwidth_gbps() -> float:
    """This GPU's copy bandwidth (read + write), measured once and cached per
    device in $XDG_CACHE_HOME/kopt/ (or ~/.cache/kopt/)."""
    props = torch.cuda.get_device_properties(0)
    uuid = str(getattr(props, "uuid", props.name)).replace("/", "_")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "kopt", f"copy-bw-{uuid}.json")
    try:
        with open(path) as f:
            return float(json.load(f)["copy_gbps"])
    except (OSError, ValueError, KeyError):
        pass
    nbytes = 1 << 30
    x = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    for _ in range(3):
        y.copy_(x)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(10):
        torch.cuda.synchronize()
        start.record()
        y.copy_(x)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
    gbps = 2 * nbytes / median(times) / 1e9
    del x, y
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump({"copy_gbps": gbps, "device": props.name}, f)
        os.replace(tmp, path)
    except OSError:
        pass
    return gbps
