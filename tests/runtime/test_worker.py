"""tests/runtime/test_worker.py: the worker's request handling
(kopt.worker.handle) on the CPU, with test doubles for the ops: a request
that runs out of GPU memory runs once more, after the failed attempt's
tensors are gone; a failure's one-line error; a result that says "lost"
stands in a fatal reply, and a worker that shares its GPU asks the lost
context nothing more; the screen's walk stops at the config that lost
the CUDA context and, resumed, goes past it measuring nothing again. Needs torch (CPU is enough);
without it the test says so and checks nothing. Prints TAP."""

import gc
import time as _t
import json
import os
import sys
import weakref

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

T0 = _t.perf_counter()

try:
    import torch
except ImportError:
    print("# no torch: nothing checked")
    done()
    sys.exit(0)

from kopt import worker as W  # noqa: E402

# a test double of an op: its first attempt holds a tensor and runs out of
# memory; the second reports whether that tensor was still alive
held = []


def oom_once(req):
    if not held:
        big = torch.empty(1 << 20)
        held.append(weakref.ref(big))
        raise torch.cuda.OutOfMemoryError("CUDA out of memory (a test double)")
    gc.collect()
    return {"first_attempt_alive": held[0]() is not None}


def always_oom(req):
    raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 8.00 GiB (a test double)")


W.OPS["oom_once"] = oom_once
W.OPS["always_oom"] = always_oom
sys.stderr = open(os.devnull, "w")  # the worker's tracebacks of the failures (koptmake keeps them)
rep = json.loads(W.handle(json.dumps({"op": "oom_once", "id": "1"})))
ok(rep.get("ok") is True, "out of memory once: the request runs again and succeeds", rep)
ok(rep.get("result", {}).get("first_attempt_alive") is False,
   "... after the failed attempt's tensors are gone (its traceback no longer holds them)", rep)
rep = json.loads(W.handle(json.dumps({"op": "always_oom", "id": "2"})))
ok(rep.get("ok") is False and rep.get("error", "").startswith("always_oom: ") and "OutOfMemoryError" in rep["error"],
   "out of memory twice: a failure reply naming the error", rep)


# the compiled models other than the request's are dropped when it runs
# out of memory (their weights are on the GPU)
class _C:
    pass


mine = W.compiled_key({"path": "m.py", "kind": "torch"}, {"name": "v"}, 0)
other = W.compiled_key({"path": "o.py", "kind": "torch"}, {"name": "default"}, 0)
W.S.compiled[mine] = _C()
W.S.compiled[other] = _C()
W.forget_others({"model": {"path": "m.py", "kind": "torch"}, "variant": {"name": "v"}, "seed": 0})
ok(list(W.S.compiled) == [mine], "forget_others: the request's compiled model stays, the other goes",
   list(W.S.compiled))
W.S.compiled.clear()
b1 = W.compiled_key({"path": "m.py", "kind": "torch", "shape": {"batch_size": 1}}, {"name": "v"}, 0)
ok(b1 != mine and b1 != W.compiled_key({"path": "m.py", "kind": "torch", "shape": {"batch_size": 8}}, {"name": "v"}, 0),
   "a shape the model is served at keeps its compiled problem apart from the file's own and the other shapes'")


# an answer that stands though the CUDA context is lost: ok, and fatal
W.OPS["lost"] = lambda req: {"tried": [1], "lost": "it lost the CUDA context (a test double)"}
rep = json.loads(W.handle(json.dumps({"op": "lost", "id": "3"})))
ok(rep.get("ok") is True and rep.get("fatal") is True and rep["result"]["tried"] == [1],
   "a result that says lost: the answer stands (ok) and the reply is fatal (the worker is replaced)", rep)
rep = json.loads(W.handle(json.dumps({"op": "oom_once", "id": "4"})))
ok(rep.get("ok") is True and not rep.get("fatal"), "any other result: not fatal", rep)


# a worker that shares its GPU hands its allocator's unused memory back
# after each request, but not after one that lost the context, where
# that call fails too (a test double of torch.cuda.empty_cache, which
# raises as a lost context makes it)
def empty_cache_lost():
    emptied.append(1)
    raise RuntimeError("CUDA error: an illegal memory access was encountered (a test double)")


emptied = []
real_empty, torch.cuda.empty_cache = torch.cuda.empty_cache, empty_cache_lost
os.environ["KOPT_GPU_SHARE"] = "2"
try:
    rep = json.loads(W.handle(json.dumps({"op": "lost", "id": "5"})))
    ok(rep.get("ok") is True and rep.get("fatal") is True and rep["result"]["tried"] == [1] and not emptied,
       "a worker sharing its GPU: a result that says lost still stands, the lost context asked nothing more",
       (rep, emptied))
    W.OPS["plain"] = lambda req: {"x": 1}
    rep = json.loads(W.handle(json.dumps({"op": "plain", "id": "6"})))
    ok(emptied == [1], "... while after any other request the sharing worker empties its allocator's cache", emptied)
    os.environ["KOPT_GPU_SHARE"] = "1"
    rep = json.loads(W.handle(json.dumps({"op": "plain", "id": "7"})))
    ok(emptied == [1] and rep.get("ok") is True, "... and a worker alone on its GPU keeps it", emptied)
finally:
    torch.cuda.empty_cache = real_empty
    del os.environ["KOPT_GPU_SHARE"]

# the screen's walk (kopt.screen.walk) on a test double of a Screen: the
# config that loses the context stops the walk with the reason; resumed
# with the rows so far, none is measured again and the walk goes past it
from kopt import screen as SC  # noqa: E402
from kopt import verify as V  # noqa: E402


class FakeScreen:
    """a TEST DOUBLE of kopt.screen.Screen: configs {"X": n}, speedup n
    up to 4, a move doubles X; X=2 loses the context"""

    def __init__(self, tried=None):
        self.tried = dict(tried or {})
        self.measured = []

    def valid(self, cfg, edit=""):
        return cfg["X"] <= 16

    def measure(self, cfg, edit="", origin=None):
        k = SC.Screen.key(cfg, edit)
        if k in self.tried:
            return self.tried[k]
        self.measured.append(cfg["X"])
        row = self.tried[k] = {"config": cfg, "edit": edit, "ok": False, **(origin or {})}
        if cfg["X"] == 2:
            row["error"] = "it lost the CUDA context (a test double)"
            raise V.ContextLost(row["error"])
        row.update(ok=True, speedup=float(min(cfg["X"], 4)))
        return row

    def moves(self, cfg, edit):
        return [({"X": cfg["X"] * 2}, edit), ({"X": cfg["X"] * 4}, edit)]

    def prefetch(self, points):
        pass


import time  # noqa: E402
import types  # noqa: E402

s = FakeScreen()
lost = SC.walk(s, {"X": 1}, {"starts": []}, time.perf_counter(), 60, 64)
ok(lost and "lost the CUDA context" in lost and s.measured == [1, 2],
   "walk: the config that loses the context stops the walk, with its reason", (lost, s.measured))
again = FakeScreen(s.tried)
lost2 = SC.walk(again, {"X": 1}, {"starts": []}, time.perf_counter(), 60, 64)
ok(lost2 is None and 1 not in again.measured and 2 not in again.measured and 4 in again.measured,
   "walk resumed with the rows so far: none measured again, the crashed config included; it goes past it",
   (lost2, again.measured))

# the starts: the kernel's own, the skills', the analyst's transforms, the
# other variants'; an edit that does not apply is refused with its reason
from kopt import knobs as N  # noqa: E402

with open(os.path.join(top, "tests", "fixtures", "kernels", "var_norm.py")) as f:
    vsrc = f.read()


class StartScreen(FakeScreen):
    """FakeScreen on a real kernel's source: each point's speedup from its
    edit (onepass=welford 3x, rloop=reverse 2x, else 1x), and the
    transforms' moves (kopt.knobs)"""

    def __init__(self):
        super().__init__()
        self.decl = types.SimpleNamespace(source=vsrc)
        self.refused = []
        self.space = N.space(vsrc, transforms={"onepass", "rloop"})

    def valid(self, cfg, edit=""):
        return True

    def measure(self, cfg, edit="", origin=None):
        k = SC.Screen.key(cfg, edit)
        if k in self.tried:
            return self.tried[k]
        self.measured.append(edit)
        x = 3.0 if "onepass=welford" in edit else 2.0 if "rloop" in edit else 1.0
        row = self.tried[k] = {"config": cfg, "edit": edit, "ok": True, "speedup": x, **(origin or {})}
        return row

    def moves(self, cfg, edit):
        return [(cfg, e) for e in N.neighbours(edit, self.space)]


st = StartScreen()
own = {"XBLOCK": 1, "R0_BLOCK": 2048, "num_warps": 8, "num_stages": 1}
req = {"skills": [{"edit": "rloop=reverse", "config": {**own, "num_warps": 16}, "skill": "rloop=reverse 1.2x, var_norm"},
                  {"edit": "evict9=first", "skill": "a load it lacks"}],
       "transforms": [{"edit": "onepass=welford", "why": "statistics in two loops"}],
       "starts": [{**own, "num_warps": 4}]}
pts = SC.start_points(st, own, req)
ok([(e, o) for _, e, o in pts] == [("", None), ("rloop=reverse", {"skill": "rloop=reverse 1.2x, var_norm"}),
                                    ("onepass=welford", {"transform": "statistics in two loops"}), ("", None)] and
   pts[1][0]["num_warps"] == 16 and pts[3][0]["num_warps"] == 4,
   "the starts: own, the skills' (at their config), the analyst's transforms, the other variants'", pts)
ok(st.refused and st.refused[0]["edit"] == "evict9=first" and "loads" in st.refused[0]["why"],
   "a skill's edit that does not apply here is refused with the reason", st.refused)
SC.walk(st, own, req, time.perf_counter(), 60, 64)
ok(st.measured[:4] == ["", "rloop=reverse", "onepass=welford", ""],
   "walk: every start measured before any descent, in their order", st.measured)
best = max((r for r in st.tried.values() if r.get("ok")), key=lambda r: r["speedup"])
ok(best["edit"].startswith("onepass=welford") and best.get("transform") == "statistics in two loops",
   "walk: the descent goes from the fastest start first, and its points name the transform they came from", best)
both = [r for r in st.tried.values() if r["edit"] == "onepass=welford+rloop=reverse"]
ok(both and both[0].get("transform") == "statistics in two loops",
   "a point reached from a start keeps that start's origin", both)

# the worker's age (a capture's part: a worker started for the step spent
# it on its start): this process's seconds since it started, which grow
# with the clock
a0 = W.process_age_s()
_t.sleep(0.3)
a1 = W.process_age_s()
ok(a0 is not None and 0 < a0 < _t.perf_counter() - T0 + 600 and a0 >= _t.perf_counter() - T0 - 0.3 - 0.05,
   "the worker's age: at least as old as this test's own clock says", (a0, _t.perf_counter() - T0))
ok(a1 is not None and 0.25 <= a1 - a0 <= 1.5, "... and 0.3 s older after 0.3 s", (a0, a1))
done()
