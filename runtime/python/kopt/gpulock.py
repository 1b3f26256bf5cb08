"""One GPU, several compiling workers: their timing runs one at a time.

koptmake compiles a model's variants in several workers at once on one GPU
(captures are not timing steps: engine/worker_pool.c lets them share it).
Compiling is the host's work, but autotuning is not: max-autotune times
GEMM and convolution templates, and every mode times a kernel's launch
configs at its first run. Two workers timing at once on one GPU would each
see the other's kernels in its numbers, and could pick a slower config for
the baseline it then reports against. So every timing that Inductor does
goes through one lock per GPU, an flock on a file that all workers of a
cache share (in KOPT_COMPILE_CACHE, which the sandbox lets them write):
compiles overlap, timings take turns.

Inductor times through ``torch._inductor.runtime.benchmarking``'s
benchmarker (templates' choices, launch configs, coordinate descent): its
classes' ``benchmark_gpu`` methods are wrapped. The lock is reentrant
within a process (a depth count), and the seconds spent waiting for it are
counted (``waited()``) so a capture can say what the sharing cost.

A model's variants that share max-autotune (autotune, autotune-cudagraphs,
...) lower the same operators at the same inputs, and side by side each
worker found Inductor's autotuning cache without them and timed every
choice again (level 3's part a: 26 of 62 operators timed twice). So the
selector's ``lookup`` with a benchmark (a cache miss times the choices and
writes their timings) runs under a lock of its own per operator, inputs
and kind of GPU (``tuning``): the second worker waits for the first's
timings, and Inductor's lookup, which reads its cache file anew, finds
them. Outer to the GPU's lock (a timing inside takes that one), and never
nested, so the two cannot deadlock. Inductor writes that cache file whole
from what it read before it timed, so two operators timed side by side
each wrote the file without the other's timings; its
``update_local_cache`` now merges into the file as it is then, under one
lock of the file (``merged``).
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import threading
import time

_state = threading.local()
_lock = threading.Lock()   # one thread of this process at a time holds the file
_count = threading.Lock()  # _waited, added to from several threads (_waited_since)
_fd: int | None = None
_waited = 0.0
_installed = False
_tuning_base: str | None = None
_tuning_kind = ""


def lock_path(base: str, gpu_id: str) -> str:
    """The lock file for a GPU under a compile cache folder."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in gpu_id) or "gpu"
    return os.path.join(base, "gpu-locks", safe + ".lock")


def _open(path: str) -> int:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


def _waited_since(t0: float) -> None:
    """Adds the seconds since t0 to what waited() says (from any thread:
    the GPU's lock and the tuning locks are waited for in several)."""
    global _waited
    with _count:
        _waited += time.perf_counter() - t0


class held:
    """Context manager: this process holds the GPU's timing lock."""

    def __enter__(self):
        depth = getattr(_state, "depth", 0)
        _state.depth = depth + 1
        if depth == 0 and _fd is not None:
            t0 = time.perf_counter()
            _lock.acquire()
            fcntl.flock(_fd, fcntl.LOCK_EX)
            _waited_since(t0)
        return self

    def __exit__(self, *exc):
        _state.depth -= 1
        if _state.depth == 0 and _fd is not None:
            fcntl.flock(_fd, fcntl.LOCK_UN)
            _lock.release()
        return False


def _wrap(fn):
    @functools.wraps(fn)
    def timed_alone(*args, **kwargs):
        with held():
            return fn(*args, **kwargs)
    timed_alone.kopt_gpulock = True
    return timed_alone


def wrap_benchmarkers(module) -> int:
    """Wraps benchmark_gpu on every class of module that defines it;
    returns how many were wrapped (0: nothing to wrap here)."""
    n = 0
    for obj in list(vars(module).values()):
        if not isinstance(obj, type):
            continue
        fn = vars(obj).get("benchmark_gpu")
        if callable(fn) and not getattr(fn, "kopt_gpulock", False):
            setattr(obj, "benchmark_gpu", _wrap(fn))
            n += 1
    return n


def tuning_path(base: str, kind: str, op: str, inputs: str) -> str:
    """The lock file of one operator's autotuning at these inputs on this
    kind of GPU (Inductor's cache of timings is per kind) under base."""
    digest = hashlib.sha256("\0".join((kind, op, inputs)).encode()).hexdigest()[:32]
    return os.path.join(base, "gpu-locks", "tune-" + digest + ".lock")


class tuning:
    """Context manager: this thread alone, of every worker of the cache,
    looks up and times this operator at these inputs (path: tuning_path;
    None: no lock). Not reentrant across files: a thread that holds it
    already goes on."""

    def __init__(self, path: str | None):
        self.path, self.fd = path, None

    def __enter__(self):
        held_now = getattr(_state, "tuning", None)
        if self.path is None or held_now is not None:
            return self
        try:
            self.fd = _open(self.path)
        except OSError:
            return self   # no lock file: the lookup runs as Inductor's own
        t0 = time.perf_counter()
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        _waited_since(t0)
        _state.tuning = self.path
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            _state.tuning = None
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None
        return False


def _lookup_args(args: tuple, kwargs: dict):
    """(op, inputs, benchmark) of a call lookup(choices, op, inputs,
    benchmark, ...), positional or by keyword"""
    names = ("choices", "op", "inputs", "benchmark")
    got = dict(zip(names, args))
    got.update({k: v for k, v in kwargs.items() if k in names})
    return got.get("op"), got.get("inputs"), got.get("benchmark")


def wrap_lookup(cls, base: str, kind: str) -> bool:
    """Wraps cls's lookup (Inductor's AlgorithmSelectorCache, a
    PersistentCache) so that a lookup with a benchmark holds tuning's lock
    of its operator and inputs; True where it is wrapped (now or before)."""
    fn = getattr(cls, "lookup", None)
    if not callable(fn):
        return False
    if getattr(fn, "kopt_tuning", False):
        return True

    @functools.wraps(fn)
    def lookup(self, *args, **kwargs):
        op, inputs, bench = _lookup_args(args, kwargs)
        path = tuning_path(base, kind, str(op), str(inputs)) if bench is not None else None
        with tuning(path):
            return fn(self, *args, **kwargs)
    lookup.kopt_tuning = True
    setattr(cls, "lookup", lookup)
    return True


def merged(old: dict, new: dict) -> dict:
    """old with new written over it, dictionaries merged at every level (a
    cache file's operators, inputs, precisions, choices)"""
    out = dict(old)
    for k, v in new.items():
        out[k] = merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def wrap_update(cls, base: str) -> bool:
    """Wraps cls's update_local_cache (Inductor's CacheBase: it writes its
    whole cache file) so that it writes what it was given merged into the
    file as it is now, under one lock of the file; True where it is
    wrapped (now or before)."""
    fn = getattr(cls, "update_local_cache", None)
    read = getattr(cls, "get_local_cache", None)
    if not callable(fn) or not callable(read):
        return False
    if getattr(fn, "kopt_merge", False):
        return True

    @functools.wraps(fn)
    def update_local_cache(self, local_cache):
        try:
            fd = _open(os.path.join(base, "gpu-locks", "local-cache.lock"))
        except OSError:
            return fn(self, local_cache)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                now = read(self)
            except (OSError, ValueError, KeyError):
                now = {}   # a file that cannot be read: Inductor's own write
            return fn(self, merged(now if isinstance(now, dict) else {}, local_cache))
        finally:
            os.close(fd)
    update_local_cache.kopt_merge = True
    setattr(cls, "update_local_cache", update_local_cache)
    return True


def install(base: str | None, gpu_id: str, kind: str = "") -> bool:
    """Takes the lock file of gpu_id under base (KOPT_COMPILE_CACHE) and
    wraps Inductor's benchmarker, its selector's lookup with the locks of
    `tuning` (kind: the GPU's name) and its cache file's writes
    (wrap_update); False where there is no such
    folder or no benchmarker to wrap (the timings then run unlocked, as in
    a worker alone on its GPU)."""
    global _fd, _installed
    if _installed or not base:
        return _installed
    try:
        from torch._inductor.runtime import benchmarking
    except ImportError:
        return False
    try:
        _fd = _open(lock_path(base, gpu_id))
    except OSError:
        return False
    _installed = wrap_benchmarkers(benchmarking) > 0
    try:
        from torch._inductor import codecache, select_algorithm
        selector = getattr(select_algorithm, "AlgorithmSelectorCache", None)
        cache = getattr(codecache, "CacheBase", None)
    except ImportError:
        selector = cache = None
    if _installed and selector is not None:
        wrap_lookup(selector, base, kind or gpu_id)
    if _installed and cache is not None:
        wrap_update(cache, base)
    return _installed


def waited() -> float:
    """Seconds this process has waited for the lock so far."""
    return _waited
