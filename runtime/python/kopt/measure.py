"""Timing on the GPU: CUPTI kernel records, CUDA events, L2 flushes.

Each timed call is bracketed by CUPTI timestamps taken after a device
synchronize, so the records of one call are those that start inside its
window; the L2 flush before it ends before the window opens.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable

import torch

from . import precision as P
from . import records as R

try:
    import _kopt_cupti as cupti  # provided by kopt-worker
except ImportError:  # plain Python: no kernel records
    cupti = None
try:
    import _kopt_counters as counters  # provided by kopt-worker (runtime/counters.c)
except ImportError:
    counters = None

# what a kernel moves to and from DRAM, as the GPU's counters see it
DRAM_METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")

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


def dram_bytes(fn: Callable, flush: Flusher, launches: list[str]) -> tuple[dict, dict]:
    """One call of fn, the L2 flushed before it, under the GPU's counters
    (kopt-worker's _kopt_counters, one range per kernel launch): per kernel
    name, (launches, DRAM bytes read and written over them), and the
    collection's account (passes, dropped ranges, times). CUPTI numbers its automatic ranges ("0", "1", ...) in
    launch order: launches, the kernel names of a timed call in the order
    they started, names them, and a call that launched another number of
    kernels is an error."""
    if counters is None:
        raise RuntimeError("DRAM bytes need the GPU's counters: run inside kopt-worker")
    flush()
    torch.cuda.synchronize()

    def call():
        fn()
        torch.cuda.synchronize()
    got = counters.collect(call, list(DRAM_METRICS), torch.cuda.current_device(), max(64, len(launches) + 16))
    drain()   # the collection's launches are not timings
    ranges = got["ranges"]
    numbered = all(r[0].isdigit() for r in ranges)
    if numbered and len(ranges) != len(launches):
        raise RuntimeError(f"the counters saw {len(ranges)} kernel launches, a timed call {len(launches)}")
    out: dict = {}
    for i, (name, values) in enumerate(ranges):
        name = launches[i] if numbered else name
        n, b = out.get(name, (0, 0.0))
        out[name] = (n + 1, b + sum(values))
    return out, {k: got[k] for k in ("passes", "dropped", "setup_s", "run_s", "decode_s") if k in got}


def enqueue_seconds(fn: Callable, n: int = 5) -> float:
    """The host's time to enqueue a call of fn, in seconds: the median of n
    calls, each after a synchronize, none inside (perf_counter)."""
    ts = []
    for _ in range(n):
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    torch.cuda.synchronize()
    return statistics.median(ts)


def spin_cycles(fn: Callable) -> int:
    """GPU clock cycles for a spin (torch.cuda._sleep) that outlasts the
    host's enqueueing of a call of fn: four times its enqueue time, at least
    200 us, at about 2 GHz (a slower clock only spins longer)."""
    return int(max(4 * enqueue_seconds(fn), 2e-4) * 2.0e9)


def event_medians(fns: list[Callable], n: int, flush: Callable, queued: bool = False) -> list[float]:
    """Per fn, the median of n CUDA-event times of a call, in ns, the fns
    interleaved and the L2 flushed before each call. From an idle GPU, the
    host's time before the first kernel and between kernels counts (a
    call's time, as the race times it). Queued, each call waits behind a
    GPU spin that outlasts the host's enqueueing (spin_cycles), so the
    events bracket its kernels back to back: its device time, which a
    host-bound call keeps from process to process while its time per call
    moves with the host's speed. The worker's profile (queued_ns_per_call)
    and the deployment check (tests/gpu/deploy.py) both measure it here."""
    spins = [spin_cycles(fn) if queued else 0 for fn in fns]
    out: list[list[float]] = [[] for _ in fns]
    for _ in range(n):
        for i, fn in enumerate(fns):
            out[i].append(_event_ms(fn, flush, spins[i]) * 1e6)
    drain()   # the spins' and calls' kernel records are not a profile's
    return [median(x) for x in out]


def median(xs):
    return float(statistics.median(xs)) if xs else 0.0


def _cache_path(what: str) -> str:
    """$XDG_CACHE_HOME/kopt/WHAT-<device uuid>.json (or ~/.cache/kopt/)."""
    props = torch.cuda.get_device_properties(0)
    uuid = str(getattr(props, "uuid", props.name)).replace("/", "_")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kopt", f"{what}-{uuid}.json")


def _cached(path: str, key: str) -> float | None:
    try:
        with open(path) as f:
            v = float(json.load(f)[key])
        return v if v > 0 else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(path: str, key: str, value: float) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump({key: value, "device": torch.cuda.get_device_properties(0).name}, f)
        os.replace(tmp, path)
    except OSError:
        pass


def _event_ms(fn: Callable, flush: Callable | None = None, spin: int = 0) -> float:
    """One call of fn between two CUDA events, in ms: after flush() where
    given and a synchronize, behind a GPU spin of spin cycles where given."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    if flush:
        flush()
    torch.cuda.synchronize()
    if spin:
        torch.cuda._sleep(spin)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def _event_times(fn: Callable, n: int) -> list[float]:
    """n CUDA-event times of fn, in seconds."""
    return [_event_ms(fn) * 1e-3 for _ in range(n)]


def copy_bandwidth_gbps() -> float:
    """This GPU's copy bandwidth (read + write), measured once and cached per
    device in $XDG_CACHE_HOME/kopt/ (or ~/.cache/kopt/)."""
    path = _cache_path("copy-bw")
    v = _cached(path, "copy_gbps")
    if v is not None:
        return v
    nbytes = 1 << 30
    x = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    for _ in range(3):
        y.copy_(x)
    gbps = 2 * nbytes / median(_event_times(lambda: y.copy_(x), 10)) / 1e9
    del x, y
    _store(path, "copy_gbps", gbps)
    return gbps


PEAK_N = 8192  # the square fp32 matmul that measures the FP32 peak


def peak_fp32_gflops() -> float:
    """This GPU's FP32 peak (non-tensor-core), GFLOP/s: the best of a few
    timings of an 8192^3 float32 matmul with TF32 off, 2 n^3 FLOPs each.
    Measured once and cached per device beside the copy bandwidth. cuBLAS
    reaches 85-95% of the datasheet's figure, and that is the roof a
    kernel meets in practice."""
    path = _cache_path("fp32-peak")
    v = _cached(path, "fp32_gflops")
    if v is not None:
        return v
    with P.policy_flags("strict"):
        n = PEAK_N
        a = torch.randn(n, n, dtype=torch.float32, device="cuda")
        b = torch.randn(n, n, dtype=torch.float32, device="cuda")
        c = torch.empty(n, n, dtype=torch.float32, device="cuda")
        for _ in range(2):
            torch.mm(a, b, out=c)
        best = min(_event_times(lambda: torch.mm(a, b, out=c), 5))
        del a, b, c
    gflops = 2.0 * n ** 3 / best / 1e9
    _store(path, "fp32_gflops", gflops)
    return gflops
