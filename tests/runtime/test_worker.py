"""tests/runtime/test_worker.py: the worker's request handling
(kopt.worker.handle) on the CPU, with test doubles for the ops: a request
that runs out of GPU memory runs once more, after the failed attempt's
tensors are gone; a failure's one-line error. Needs torch (CPU is enough);
without it the test says so and checks nothing. Prints TAP."""

import gc
import json
import os
import sys
import weakref

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

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

done()
