"""kopt.stacks: KOPT_WORKER_STACKS's dumps (no torch needed). Prints TAP."""
import io
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "runtime", "python"))
from kopt.stacks import stack_dumps  # noqa: E402

n = 0


def ok(cond, what):
    global n
    n += 1
    print(f"{'ok' if cond else 'not ok'} {n} - {what}")


def waits_here(ev):
    ev.wait(5)


buf = io.StringIO()
gate = threading.Event()
t = threading.Thread(target=waits_here, args=(gate,), name="the-waiter")
t.start()
stop = stack_dumps("0.05", buf)
time.sleep(0.3)
stop.set()
gate.set()
t.join()
text = buf.getvalue()
ok(stop is not None, "a number of seconds starts the dumps")
ok(text.count("kopt-worker: stacks after") >= 2, "they repeat (%d dumps in 0.3 s every 0.05 s)" % text.count("stacks after"))
ok("thread the-waiter:" in text and "in waits_here" in text, "each names a thread and shows where it waits")
ok("thread MainThread:" in text, "the main thread's stack is there")
ok("thread kopt-stacks" not in text, "the dumping thread leaves itself out")
warn = io.StringIO()
ok(stack_dumps("soon", warn) is None and "is not a number of seconds" in warn.getvalue(), "a word is a warning, no thread")
for v in (None, "", "0", "-1"):
    quiet = io.StringIO()
    ok(stack_dumps(v, quiet) is None and quiet.getvalue() == "", f"{v!r}: nothing started, nothing said")
print(f"1..{n}")
