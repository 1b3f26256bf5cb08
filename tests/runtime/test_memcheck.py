"""tests/runtime/test_memcheck.py: the memcheck hook of gate 1
(runtime/python/kopt/memcheck.py) without a GPU: the policy, the search for
compute-sanitizer, its command line and the reading of its report, against
tests/runtime/fake-compute-sanitizer (a TEST DOUBLE); the guarded run
before it, against tests/runtime/fake-guard-python (a TEST DOUBLE of the
child's Python). The children themselves need torch and a GPU: tests/gpu
runs them (cheats.sh); kopt-guard.so's layout is tests/unit/guard_test's.
Prints TAP."""

import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import memcheck as MC  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

FAKE = os.path.join(top, "tests", "runtime", "fake-compute-sanitizer")
FAKE_PY = os.path.join(top, "tests", "runtime", "fake-guard-python")
LIB = os.path.abspath(__file__)  # a file where KOPT_GUARD_LIB must name one




req = {"model": {"name": "m", "kind": "torch", "path": "/nonexistent/m.py"}, "variant": {"name": "default"}, "seed": 0}
cand = {"source": "...", "config": None}
why = ["store at line 15 (tl.store(out_ptr + 2 * offs, v, mask=mask)): its index or mask differs from the original's"]

cmd = MC.command("/x/compute-sanitizer", "/usr/bin/python3", "/tmp/r.json")
ok(cmd[:3] == ["/x/compute-sanitizer", "--tool", "memcheck"] and cmd[-3:] == ["-m", "kopt.memcheck_child", "/tmp/r.json"]
   and "--error-exitcode" in cmd, "command: memcheck tool, an error exit status, the child module", cmd)

def padded(value):
    """the --padding that command() passes with KOPT_MEMCHECK_PADDING=value (None: unset)"""
    saved = os.environ.pop("KOPT_MEMCHECK_PADDING", None)
    if value is not None:
        os.environ["KOPT_MEMCHECK_PADDING"] = value
    try:
        c = MC.command("/x/compute-sanitizer", "/usr/bin/python3", "/tmp/r.json")
    finally:
        os.environ.pop("KOPT_MEMCHECK_PADDING", None)
        if saved is not None:
            os.environ["KOPT_MEMCHECK_PADDING"] = saved
    i = c.index("--padding") if "--padding" in c else -1
    return (c[i + 1] if i >= 0 else None), c


# padding that belongs to no allocation after each one: a move past a
# tensor's end by a computed amount lands in it, not in the next tensor
pad, c = padded(None)
ok(pad == str(16 << 20) and c.index("--padding") < c.index("/usr/bin/python3"),
   "command: 16 MiB of padding after each allocation by default, an option of compute-sanitizer's", c)
ok(padded("4096")[0] == "4096", "command: KOPT_MEMCHECK_PADDING sets the padding's bytes")
ok(padded("0")[0] is None, "command: KOPT_MEMCHECK_PADDING=0 passes no padding")
ok(padded("lots")[0] == str(16 << 20) and padded("-1")[0] == str(16 << 20),
   "command: a padding that is not a count of bytes keeps the default, not none")

clean = MC.parse(0, "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n")
ok(clean[0] and "clean" in clean[1], "parse: no errors is clean", clean)
oob = MC.parse(86, "========= Invalid __global__ write of size 4 bytes\n=========     at triton_x+0x10\n"
                   "========= ERROR SUMMARY: 1 error\n")
ok(not oob[0] and "Invalid __global__ write of size 4 bytes at triton_x+0x10" in oob[1],
   "parse: an invalid write fails, with the access and the kernel", oob)
ok(not MC.parse(0, "========= ERROR SUMMARY: 2 errors\n")[0], "parse: errors in the summary fail even with status 0")
crash = MC.parse(1, "PermissionError: denied\n========= ERROR SUMMARY: 0 errors\n")
ok(not crash[0] and "could not run the candidate" in crash[1], "parse: a failed child fails the candidate", crash)
ok(crash[1].endswith(": PermissionError: denied"),
   "parse: a failed child's reason is its own last line, not compute-sanitizer's summary", crash)
bare = MC.parse(3, "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n\n")
ok(not bare[0] and bare[1].endswith(": exit status 3"), "parse: a child that said nothing: its exit status", bare)

env0 = dict(os.environ)


def with_env(**kw):
    os.environ.clear()
    os.environ.update(env0)
    for k, v in kw.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


with_env(KOPT_MEMCHECK="off", KOPT_COMPUTE_SANITIZER=FAKE)
r = MC.run(req, "k", cand, why)
ok(r["ok"] and not r["ran"] and "KOPT_MEMCHECK=off" in r["reason"], "KOPT_MEMCHECK=off: not run, said so", r)

with_env(KOPT_MEMCHECK=None, KOPT_COMPUTE_SANITIZER="/nonexistent/compute-sanitizer")
r = MC.run(req, "k", cand, why)
ok(r["ok"] and not r["ran"] and "compute-sanitizer not found" in r["reason"] and "line 15" in r["reason"],
   "auto without compute-sanitizer: passes with a note naming the access", r)
with_env(KOPT_MEMCHECK="require", KOPT_COMPUTE_SANITIZER="/nonexistent/compute-sanitizer")
r = MC.run(req, "k", cand, why)
ok(not r["ok"] and "KOPT_MEMCHECK=require" in r["reason"], "require without compute-sanitizer: fails", r)

for mode, want in (("clean", True), ("oob", False), ("crash", False)):
    with_env(KOPT_MEMCHECK=None, KOPT_COMPUTE_SANITIZER=FAKE, FAKE_SANITIZER=mode)
    r = MC.run(req, "k", cand, why)
    ok(r["ran"] and r["ok"] is want, f"the test double reports {mode}: {'passes' if want else 'fails'}", r)
with_env(KOPT_MEMCHECK=None, KOPT_COMPUTE_SANITIZER=FAKE, FAKE_SANITIZER="oob")
r = MC.run(req, "k", cand, why)
ok("out of bounds" not in r["reason"] and "Invalid __global__ write" in r["reason"], "the reason quotes the first error", r)
# reasons travel cut at 400 characters: a failure says its outcome first,
# a pass what needed the memcheck first
ok(r["reason"].startswith("compute-sanitizer memcheck: Invalid") and "line 15" in r["reason"],
   "a failing memcheck's reason starts with what it found, then why it ran", r)
with_env(KOPT_MEMCHECK=None, KOPT_COMPUTE_SANITIZER=FAKE, FAKE_SANITIZER="crash")
r = MC.run(req, "k", cand, why)
ok(r["reason"].startswith("compute-sanitizer memcheck could not run the candidate: PermissionError"),
   "a child that failed: the reason starts with its exception", r)
with_env(KOPT_MEMCHECK=None, KOPT_COMPUTE_SANITIZER=FAKE, FAKE_SANITIZER="clean")
r = MC.run(req, "k", cand, why)
ok(r["reason"].startswith("needs a memcheck (") and r["reason"].endswith("clean"),
   "a clean memcheck's reason: why it ran, then clean", r)
# the child runs without PyTorch's caching allocator, whatever the
# worker's own setting: a write past a tensor into the next one of the same
# segment is then past an allocation, which compute-sanitizer sees
for own in (None, "0"):
    with_env(KOPT_MEMCHECK=None, KOPT_COMPUTE_SANITIZER=FAKE, FAKE_SANITIZER="env", PYTORCH_NO_CUDA_MEMORY_CACHING=own)
    r = MC.run(req, "k", cand, why)
    ok(r["reason"].startswith("compute-sanitizer memcheck could not run the candidate: "
                              "child: PYTORCH_NO_CUDA_MEMORY_CACHING=1;"),
       f"the child runs with PyTorch's caching allocator off (the worker's own: {own})", r)
with_env()


# the guarded run (kopt-guard.so as the child's allocator), before
# compute-sanitizer's
def guarded(guard, sanitizer="clean", lib=LIB, **kw):
    with_env(KOPT_MEMCHECK=kw.pop("policy", None), KOPT_COMPUTE_SANITIZER=kw.pop("san", FAKE),
             FAKE_SANITIZER=sanitizer, FAKE_GUARD=guard, KOPT_GUARD_LIB=lib, **kw)
    try:
        return MC.run(req, "k", cand, why, python=FAKE_PY)
    finally:
        with_env()


r = guarded("clean")
ok(r["ok"] and r["ran"] and "guarded run clean; compute-sanitizer memcheck clean" in r["reason"],
   "guarded run and compute-sanitizer both clean: passes, both said", r)
r = guarded("fault", sanitizer="crash")
ok(not r["ok"] and r["reason"].startswith("guarded run: the call with the candidate failed: AcceleratorError: "
                                          "CUDA error: an illegal memory access") and "line 15" in r["reason"],
   "a fault in the guarded run fails the candidate, the fault first, then why it ran", r)
ok("PermissionError" not in r["reason"] and "compute-sanitizer" not in r["reason"],
   "after a guarded run that failed, compute-sanitizer's is not made", r)
r = guarded("setup")
ok(r["ok"] and "guarded run not made: setup: RuntimeError: CUDAPluggableAllocator" in r["reason"]
   and r["reason"].endswith("compute-sanitizer memcheck clean"),
   "a guarded run that could not be set up: said, and compute-sanitizer decides", r)
r = guarded("setup", sanitizer="oob")
ok(not r["ok"] and r["reason"].startswith("compute-sanitizer memcheck: Invalid"),
   "... and compute-sanitizer's error still fails it", r)
r = guarded("setup", policy="require")
ok(not r["ok"] and "KOPT_MEMCHECK=require" in r["reason"], "KOPT_MEMCHECK=require: a guarded run not made fails", r)
r = guarded("clean", policy="require")
ok(r["ok"], "KOPT_MEMCHECK=require: both made and clean passes", r)
r = guarded("crash")
ok(not r["ok"] and r["reason"].startswith("guarded run could not run the candidate: exit status 139"),
   "a guarded child killed by a signal during the call fails the candidate", r)
r = guarded("setup-crash")
ok(r["ok"] and "guarded run not made: it ended before the call (exit status 134)" in r["reason"]
   and r["reason"].endswith("compute-sanitizer memcheck clean"),
   "a guarded child killed before its set-up's line: not made, compute-sanitizer decides", r)
r = guarded("setup-crash", sanitizer="crash")
ok(not r["ok"] and r["reason"].startswith("compute-sanitizer memcheck could not run the candidate"),
   "... and a candidate that breaks both children fails", r)
r = guarded("sleep", KOPT_MEMCHECK_TIMEOUT="1")
ok(not r["ok"] and r["reason"].startswith("the guarded run's call with the candidate took more than 1 s"),
   "a guarded call with the candidate past the timeout fails", r)
r = guarded("slow-setup", KOPT_MEMCHECK_TIMEOUT="1")
ok(r["ok"] and "guarded run not made: its set-up took more than 1 s" in r["reason"]
   and r["reason"].endswith("compute-sanitizer memcheck clean"),
   "a guarded set-up past the timeout (a compile): not made, compute-sanitizer decides", r)
r = guarded("clean", lib=None)
ok(r["ok"] and "guarded run not made: no kopt-guard.so (KOPT_GUARD_LIB)" in r["reason"]
   and r["reason"].endswith("compute-sanitizer memcheck clean"), "no kopt-guard.so: said, compute-sanitizer decides", r)
r = guarded("clean", lib="/nonexistent/kopt-guard.so", policy="require")
ok(not r["ok"] and "no kopt-guard.so" in r["reason"], "KOPT_MEMCHECK=require: a KOPT_GUARD_LIB that names no file fails", r)
r = guarded("clean", san="/nonexistent/compute-sanitizer")
ok(r["ok"] and r["ran"] and "guarded run clean; compute-sanitizer not found" in r["reason"],
   "no compute-sanitizer: the guarded run alone, said", r)
r = guarded("clean", policy="off")
ok(r["ok"] and not r["ran"] and "KOPT_MEMCHECK=off" in r["reason"], "KOPT_MEMCHECK=off: no guarded run either", r)
r = guarded("env", PYTORCH_NO_CUDA_MEMORY_CACHING=None)
here = os.path.join(top, "runtime", "python")
ok("PYTORCH_NO_CUDA_MEMORY_CACHING=unset" in r["reason"]
   and os.path.realpath(r["reason"].split("PYTHONPATH=")[1].split(";")[0]) == os.path.realpath(here),
   "the guarded child: the package's folder first on its path, torch's allocator setting left alone", r)

# the guarded run compiles the variant without CUDA graphs (their pools are
# the caching allocator's); every other setting stays
for v, want in (({"name": "d"}, None), ({"name": "a", "mode": "max-autotune-no-cudagraphs"}, None),
                ({"name": "g", "mode": "reduce-overhead"}, False), ({"name": "m", "mode": "max-autotune"}, False),
                ({"name": "o", "options": {"triton.cudagraphs": True, "max_autotune": True}}, False),
                ({"name": "x", "mode": "max-autotune", "options": {"triton.cudagraphs": False}}, False)):
    w = MC.without_graphs(v)
    got = (w.get("options") or {}).get("triton.cudagraphs")
    keep = all(w.get(k) == v.get(k) for k in ("name", "mode")) and \
        all(w["options"].get(k) == x for k, x in (v.get("options") or {}).items() if k != "triton.cudagraphs")
    ok(got is want and keep and (want is not None or w is v),
       f"without_graphs {v}: triton.cudagraphs {want}, the rest kept", w)

done()
