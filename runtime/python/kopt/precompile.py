"""Compiling a screen's next points in parallel.

A screen point's cost is mostly its Triton compile (LLVM and ptxas, in
the worker's own process, one point at a time), not its timing. The pool
here is child processes that compile kernels at given launch configs into
Triton's on-disk cache and load nothing onto the GPU; the worker's own
compile of the same point (kernels.load_kernel) then finds it there. A
point is sent to the pool when the search knows it will measure it (the
moves from the current point, all at once); the worker waits for that
point alone before it measures it, while the children compile the next.

Nothing depends on the pool for correctness: a child that fails, dies or
is late leaves the worker to compile the point itself, as without a pool.
Triton's cache key is the kernel function's text, its constants, the
compile options, the backend's (ptxas's version) and the environment's
variables that change a compile, so a child compiling the same text at
the same config writes the entry that the worker reads only where its
ptxas, libdevice and those variables are the worker's: Inductor sets
TRITON_PTXAS_PATH (torch's own ptxas) and the libdevice (the CUDA
toolkit's, through Triton's knob) in the worker's process when it first
compiles, after a pool may have started. Each request carries the
worker's values as they are then (compile_env), and the child takes them
before it compiles. The backend's part of the key is the output of
`ptxas --version`, which Triton reads once a process (an lru_cache): a
child that had compiled before the worker's ptxas was set, or a worker
that had read it before Inductor set it, would key on another ptxas than
the other. The request carries the version the worker's keys hold, and the
child's keys hold that one (take_env).

KOPT_COMPILE_JOBS: the children (default: half the CPUs less one, at
most 8; 0: no pool). Each child imports torch once and serves requests
until its stdin closes (the worker's exit). Standard library only in the
parent; the child (``python -m kopt.precompile``) uses kopt.kernels.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

MAX_JOBS = 8
MAX_SKIPPED = 1000  # lines a child may print before a point's reply


def default_jobs() -> int:
    v = os.environ.get("KOPT_COMPILE_JOBS")
    if v is not None and v.strip():
        try:
            return max(0, int(v))
        except ValueError:
            return 0
    return max(0, min(MAX_JOBS, (os.cpu_count() or 1) // 2 - 1))


# the variables of Triton's cache key that a worker's compile may have set
# after the children started (Inductor: torch's ptxas, the toolkit's
# libdevice), and those Triton names as changing a compile
# (CACHE_INVALIDATING_ENV_VARS, triton/_C/include/triton/Tools/Sys/GetEnv.hpp)
ENV_KEYS = ("TRITON_PTXAS_PATH", "TRITON_LIBDEVICE_PATH", "TRITON_CACHE_DIR", "DISABLE_FAST_REDUCTION",
            "DISABLE_LLVM_OPT", "DISABLE_MMA_V3", "DISABLE_PTXAS_OPT", "LLVM_IR_ENABLE_DUMP", "LLVM_ENABLE_TIMING",
            "MLIR_ENABLE_DIAGNOSTICS", "MLIR_ENABLE_DUMP", "MLIR_ENABLE_TIMING", "TRITON_DISABLE_LINE_INFO",
            "TRITON_ENABLE_LLVM_DEBUG", "USE_IR_LOC")


def compile_env() -> dict:
    """What a compile child sets before it compiles: each of ENV_KEYS as
    this process has it (None: unset), and "libdevice", Triton's libdevice
    knob where this process has set it (Inductor sets the knob, and the
    variable only for its own subprocesses)."""
    env = {k: os.environ.get(k) for k in ENV_KEYS}
    triton = sys.modules.get("triton")  # the parent imports no torch: only a Triton already there
    try:
        lib = triton.knobs.nvidia.libdevice_path if triton is not None else None
    except AttributeError:
        lib = None
    if lib:
        env["libdevice"] = str(lib)
    ptxas = _ptxas_version(triton)
    if ptxas:
        env["ptxas_version"] = ptxas
    return env


_arch: list = []  # the current GPU's arch, once read


def _ptxas_version(triton) -> list | None:
    """[arch, the ptxas version Triton's cache keys of this process hold
    for the current GPU's arch], where this process has Triton's NVIDIA
    backend loaded; else None"""
    nc = sys.modules.get("triton.backends.nvidia.compiler")
    if triton is None or nc is None or not hasattr(nc, "get_ptxas_version"):
        return None
    try:
        if not _arch:
            _arch.append(int(triton.runtime.driver.active.get_current_target().arch))
        return [_arch[0], str(nc.get_ptxas_version(_arch[0]))]
    except Exception:  # no GPU, another Triton: the child reads its own
        return None


def take_env(env: dict) -> None:
    """In a child: the worker's compile environment (compile_env)."""
    if not isinstance(env, dict):
        return
    for k in ENV_KEYS:
        if k not in env:
            continue
        if env[k] is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = str(env[k])
    if env.get("libdevice"):
        try:
            from triton import knobs
            knobs.nvidia.libdevice_path = str(env["libdevice"])
        except (ImportError, AttributeError):
            pass
    pv = env.get("ptxas_version")
    if isinstance(pv, list) and len(pv) == 2:
        try:
            from triton.backends.nvidia import compiler as nc
        except ImportError:
            return
        # Triton's own, kept once: each request's version replaces the last
        own = getattr(nc, "kopt_own_ptxas_version", None) or nc.get_ptxas_version
        nc.kopt_own_ptxas_version = own
        arch, version = int(pv[0]), str(pv[1])

        def get_ptxas_version(a: int = 80):
            return version if a == arch else own(a)

        nc.get_ptxas_version = get_ptxas_version


class Point:
    """One kernel at one launch config, sent to the pool; done is set when
    a child has answered (ok: whether it compiled) or the pool gave up."""

    def __init__(self, name: str, source: str, config: dict):
        self.name, self.source, self.config = name, source, config
        self.done = threading.Event()
        self.taken = threading.Event()  # a child has it
        self.skip = False               # the worker compiles it itself: no child takes it
        self.ok = False
        self.error = ""
        self.key = None                 # the child's compile key (kernels.triton_compiles)
        self.env = compile_env()        # the worker's, when the search sent it

    def wait(self, seconds: float) -> bool:
        """Waits for the point's compile where a child has taken it (at
        most seconds); one still queued is left to the caller, and no child
        takes it after this. Returns whether a child compiled it."""
        if not self.taken.is_set():
            self.skip = True
            if not self.taken.is_set():
                return False
        self.done.wait(seconds)
        return self.ok


class Pool:
    def __init__(self, jobs: int, command: list[str] | None = None, env: dict | None = None):
        self.jobs = jobs
        self.command = command or [sys.executable or "python3", "-m", "kopt.precompile"]
        self.env = env
        self.todo: queue.Queue = queue.Queue()
        self.procs: list = []
        self.threads: list = []
        self.lock = threading.Lock()
        self.sent = 0
        self.alive = 0

    def start(self) -> "Pool":
        env = dict(os.environ if self.env is None else self.env)
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        for _ in range(self.jobs):
            try:
                p = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1)
            except OSError:
                break
            self.procs.append(p)
            t = threading.Thread(target=self._serve, args=(p,), daemon=True)
            self.threads.append(t)
            self.alive += 1
            t.start()
        return self

    def _serve(self, p) -> None:
        """One child's thread: takes points from the queue, one at a time."""
        while True:
            pt = self.todo.get()
            if pt is None:
                break
            pt.taken.set()
            if pt.skip:  # the worker did not wait for it
                pt.error = "skipped"
                pt.done.set()
                continue
            with self.lock:
                self.sent += 1
                ident = self.sent
            rep = None
            try:
                p.stdin.write(json.dumps({"id": ident, "name": pt.name, "source": pt.source,
                                          "config": pt.config, "env": pt.env}) + "\n")
                p.stdin.flush()
                # its reply: a line that is not, or not this point's, is skipped
                for _ in range(MAX_SKIPPED):
                    line = p.stdout.readline()
                    if not line:
                        break
                    try:
                        got = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(got, dict) and got.get("id") == ident:
                        rep = got
                        break
                else:
                    rep = {"ok": False, "error": "no reply for this point"}
            except (OSError, ValueError):
                pass
            if rep is None:  # the child is gone: the point is the worker's, and so is the rest
                pt.error = "the compile child exited"
                pt.done.set()
                break
            pt.ok, pt.error = bool(rep.get("ok")), str(rep.get("error", ""))
            pt.key = rep.get("key") if isinstance(rep.get("key"), dict) else None
            pt.done.set()
        with self.lock:
            self.alive -= 1
        if self.alive == 0:  # no child left: whatever waits is released
            self.drop()

    def submit(self, points: list[Point]) -> list[Point]:
        if self.alive == 0:
            for pt in points:
                pt.done.set()
            return points
        for pt in points:
            self.todo.put(pt)
        return points

    def drop(self) -> None:
        """Forgets the points not yet taken (a screen that stops early)."""
        while True:
            try:
                pt = self.todo.get_nowait()
            except queue.Empty:
                return
            if pt is None:
                self.todo.put(None)
                return
            pt.error = "dropped"
            pt.done.set()

    def close(self) -> None:
        self.drop()
        for _ in self.threads:
            self.todo.put(None)
        for p in self.procs:
            try:
                p.stdin.close()
            except OSError:
                pass
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


_pool: Pool | None = None


def pool() -> Pool | None:
    """The worker's pool, started at its first use; None without one."""
    global _pool
    if _pool is None:
        jobs = default_jobs()
        if jobs <= 0:
            return None
        _pool = Pool(jobs).start()
    return _pool if _pool.alive else None


def child() -> int:
    """A compile child: one JSON request per line on stdin, one reply per
    line on stdout, until stdin closes."""
    # the replies go to the first stdout alone: what the libraries print
    # (Python's or C's) goes to stderr
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from . import kernels as K

    for line in sys.stdin:
        req = {}
        try:
            req = json.loads(line)
            take_env(req.get("env"))
            key = K.compile_only(req["name"], req["source"], req["config"])
            rep = {"ok": True, "key": key}
        except Exception as exc:  # a config that does not build is the worker's to report
            rep = {"ok": False, "error": (str(exc).splitlines() or [repr(exc)])[0][:200]}
        rep["id"] = req.get("id") if isinstance(req, dict) else None
        out.write(json.dumps(rep) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(child())
