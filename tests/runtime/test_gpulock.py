"""kopt.gpulock: timings of several workers on one GPU take turns, and one
worker tunes an operator that several workers' variants share (no torch
needed: the benchmarker and the selector's persistent cache are stand-in
classes, TEST DOUBLES of Inductor's, and the other workers child
processes). Prints TAP."""
import glob
import json
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

# Inductor's cache of timings (codecache.CacheBase, PersistentCache) and
# its selector: lookup reads the cache file anew, times the choices on a
# miss (0.5 s here) and writes the whole file from what it read, with the
# new timings. TEST DOUBLE, in a module the child workers import too
SELECTOR = """
import json, os, time
class CacheBase:
    def __init__(self, path, log):
        self.path, self.log = path, log
    def get_local_cache(self):
        return json.load(open(self.path))['cache'] if os.path.exists(self.path) else {}
    def update_local_cache(self, local_cache):
        tmp = self.path + '.%d' % os.getpid()
        with open(tmp, 'w') as f:
            json.dump({'cache': local_cache}, f)
        os.replace(tmp, self.path)
class Selector(CacheBase):
    def lookup(self, choices, op, inputs, benchmark, hint_override=None):
        cache = self.get_local_cache()
        if inputs in cache.get(op, {}) or benchmark is None:
            return cache.get(op, {}).get(inputs)
        with open(self.log, 'a') as f:
            f.write('%s %.3f start\\n' % (inputs, time.time()))
        timings = benchmark(choices)
        time.sleep(0.5)
        with open(self.log, 'a') as f:
            f.write('%s %.3f end\\n' % (inputs, time.time()))
        cache.setdefault(op, {})[inputs] = timings
        self.update_local_cache(cache)
        return timings
"""
WORKER = """
import sys, time
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from kopt import gpulock as G
import selector_double as D
base, inputs = sys.argv[3], sys.argv[4]
G.wrap_lookup(D.Selector, base, 'H100')
G.wrap_update(D.CacheBase, base)
s = D.Selector(base + '/cache.json', base + '/log')
print('go', flush=True)
sys.stdin.readline()
print(s.lookup(['a', 'b'], 'mm', inputs, lambda ch: {c: 1.0 for c in ch}), flush=True)
"""


def workers(base, inputs_of):
    """children that look up at once, each inputs_of[i]; their log lines"""
    kids = [subprocess.Popen([sys.executable, "-c", WORKER, base, os.path.join(top, "runtime", "python"), base, i],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for i in inputs_of]
    for k in kids:
        k.stdout.readline()
    for k in kids:
        k.stdin.write("\n")
        k.stdin.flush()
    outs = [k.communicate()[0] for k in kids]
    log = open(os.path.join(base, "log")).read().split() if os.path.exists(os.path.join(base, "log")) else []
    return outs, [log[i:i + 3] for i in range(0, len(log), 3)]


top = os.environ.get("top_srcdir", ".")
with tempfile.TemporaryDirectory() as base:
    with open(os.path.join(base, "selector_double.py"), "w") as f:
        f.write(SELECTOR)
    outs, log = workers(base, ["4x8", "4x8", "4x8"])
    starts = [r for r in log if r[2] == "start"]
    ok(len(starts) == 1, f"three workers' variants looking up one operator at one input: it is timed once ({len(starts)})",
       log)
    ok(all("{'a': 1.0, 'b': 1.0}" in o for o in outs), "and each of them gets its timings", outs)
    ok(len(glob.glob(os.path.join(base, "gpu-locks", "tune-*.lock"))) == 1, "one lock file for the operator")
with tempfile.TemporaryDirectory() as base:
    with open(os.path.join(base, "selector_double.py"), "w") as f:
        f.write(SELECTOR)
    outs, log = workers(base, ["4x8", "8x16"])
    spans = {r[0]: [] for r in log}
    for r in log:
        spans[r[0]].append(float(r[1]))
    ok(len(spans) == 2, f"two inputs: each is timed ({sorted(spans)})", log)
    (a0, a1), (b0, b1) = list(spans.values())[:2] if len(spans) == 2 else ((0, 0), (1, 1))
    ok(a0 < b1 and b0 < a1, "and their timings are not held back by each other's lock", log)
    have = json.load(open(os.path.join(base, "cache.json")))["cache"].get("mm", {})
    ok(sorted(have) == ["4x8", "8x16"], f"the cache file keeps both operators' timings, written side by side ({sorted(have)})")
ok(G.merged({"mm": {"4x8": {"a": 1}}, "bmm": 1}, {"mm": {"4x8": {"b": 2}, "8x8": {}}}) ==
   {"mm": {"4x8": {"a": 1, "b": 2}, "8x8": {}}, "bmm": 1}, "a write merges into the file at every level")
ok(G.merged({"mm": {"a": 1}}, {"mm": {"a": 3}}) == {"mm": {"a": 3}}, "the new timing of a choice wins")
ok(G.tuning_path("/c", "H100", "mm", "4x8") != G.tuning_path("/c", "H200", "mm", "4x8"),
   "another kind of GPU (another cache of timings) has another lock")
ok(G._lookup_args((["a"], "mm", "4x8"), {"benchmark": len}) == ("mm", "4x8", len),
   "lookup's operator, inputs and benchmark, given by keyword too")


class Plain:
    """a selector whose lookup records whether a tuning lock was held"""

    def lookup(self, choices, op, inputs, benchmark=None):
        return getattr(G._state, "tuning", None)


with tempfile.TemporaryDirectory() as base:
    ok(G.wrap_lookup(Plain, base, "H100") and G.wrap_lookup(Plain, base, "H100"), "wrapped once, then left as it is")
    ok(Plain().lookup(["a"], "mm", "4x8", None) is None, "a lookup without a benchmark (a cache check) takes no lock")
    held = Plain().lookup(["a"], "mm", "4x8", len)
    ok(held == G.tuning_path(base, "H100", "mm", "4x8"), "one with a benchmark holds its operator's lock", held)
    ok(getattr(G._state, "tuning", None) is None, "and lets go after it")
done()
