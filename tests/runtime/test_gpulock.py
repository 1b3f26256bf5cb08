"""kopt.gpulock: timings of several workers on one GPU take turns (no torch
needed: the benchmarker is a stand-in class, a TEST DOUBLE of Inductor's,
and the lock's other holder a child process). Prints TAP."""
import os
import subprocess
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "runtime", "python"))
from kopt import gpulock as G  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402



class Benchmarker:
    """stands in for torch._inductor.runtime.benchmarking's classes"""

    def benchmark_gpu(self, fn):
        return fn()


class Triton(Benchmarker):
    def benchmark_gpu(self, fn):
        return super().benchmark_gpu(fn) + 1


fake = types.ModuleType("benchmarking")
fake.Benchmarker, fake.Triton, fake.other = Benchmarker, Triton, 3
ok(G.wrap_benchmarkers(fake) == 2, "both classes' benchmark_gpu are wrapped")
ok(G.wrap_benchmarkers(fake) == 0, "a second pass wraps nothing again")
ok(Triton().benchmark_gpu(lambda: 41) == 42, "a wrapped benchmark still returns its time")

with tempfile.TemporaryDirectory() as base:
    path = G.lock_path(base, "GPU-1234/../x")
    ok(os.path.dirname(path) == os.path.join(base, "gpu-locks") and "/" not in os.path.basename(path),
       f"the GPU's id makes one file name under the cache ({os.path.basename(path)})")
    G._fd = G._open(path)
    # another worker holds the GPU's lock for 0.6 s
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "time.sleep(0.6)\n"), path], stdout=subprocess.PIPE, text=True)
    ok(holder.stdout.readline().strip() == "held", "the other worker holds the lock")
    t0 = time.perf_counter()
    seen = Triton().benchmark_gpu(lambda: time.perf_counter() - t0)
    holder.wait()
    ok(seen >= 1.4, f"this worker's timing ran only after the other let go ({seen - 1:.2f} s)")
    ok(G.waited() >= 0.4, f"the wait is counted ({G.waited():.2f} s)")
    # nested: the inner call does not wait for the lock the outer holds
    w = G.waited()
    with G.held():
        ok(Triton().benchmark_gpu(lambda: 1) == 2, "a timing inside a held lock runs (reentrant)")
    ok(G.waited() - w < 0.1, "and does not wait for itself")
    os.close(G._fd)
    G._fd = None
ok(G.install(None, "x") is False, "without a compile cache folder no lock is taken")
done()
