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
"""

from __future__ import annotations

import fcntl
import functools
import os
import threading
import time

_state = threading.local()
_lock = threading.Lock()   # one thread of this process at a time holds the file
_fd: int | None = None
_waited = 0.0
_installed = False


def lock_path(base: str, gpu_id: str) -> str:
    """The lock file for a GPU under a compile cache folder."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in gpu_id) or "gpu"
    return os.path.join(base, "gpu-locks", safe + ".lock")


def _open(path: str) -> int:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


class held:
    """Context manager: this process holds the GPU's timing lock."""

    def __enter__(self):
        global _waited
        depth = getattr(_state, "depth", 0)
        _state.depth = depth + 1
        if depth == 0 and _fd is not None:
            t0 = time.perf_counter()
            _lock.acquire()
            fcntl.flock(_fd, fcntl.LOCK_EX)
            _waited += time.perf_counter() - t0
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


def install(base: str | None, gpu_id: str) -> bool:
    """Takes the lock file of gpu_id under base (KOPT_COMPILE_CACHE) and
    wraps Inductor's benchmarker; False where there is no such folder or
    no benchmarker to wrap (the timings then run unlocked, as in a worker
    alone on its GPU)."""
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
    return _installed


def waited() -> float:
    """Seconds this process has waited for the lock so far."""
    return _waited
