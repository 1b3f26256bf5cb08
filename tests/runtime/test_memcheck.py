"""tests/runtime/test_memcheck.py: the memcheck hook of gate 1
(runtime/python/kopt/memcheck.py) without a GPU: the policy, the search for
compute-sanitizer, its command line and the reading of its report, against
tests/runtime/fake-compute-sanitizer (a TEST DOUBLE). The child itself needs
torch and a GPU: tests/gpu runs it. Prints TAP."""

import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import memcheck as MC  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

FAKE = os.path.join(top, "tests", "runtime", "fake-compute-sanitizer")




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

done()
