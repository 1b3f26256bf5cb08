"""Stack dumps of a worker that seems stuck (KOPT_WORKER_STACKS=S)."""

from __future__ import annotations

import sys
import threading
import time
import traceback


def stack_dumps(every: str | None, out=None) -> threading.Event | None:
    """Every ``every`` seconds, every other thread's stack on out (stderr:
    koptmake keeps it in .kopt/workers/), to see what a slow step waits on.
    A thread of its own reads the frames holding the interpreter's lock:
    faulthandler's timer reads them without it, which crashed a worker whose
    threads come and go (Helion's autotuner's). Returns the event that stops
    it, or None when nothing was started (unset, zero, or not a number:
    then a warning)."""
    out = out or sys.stderr
    try:
        secs = float(every) if every else 0.0
    except ValueError:
        print(f"kopt-worker: warning: KOPT_WORKER_STACKS={every!r} is not a number of seconds", file=out)
        return None
    if not secs > 0:
        return None
    t0, stop = time.perf_counter(), threading.Event()

    def dump():
        while not stop.wait(secs):
            names = {t.ident: t.name for t in threading.enumerate()}
            lines = [f"kopt-worker: stacks after {time.perf_counter() - t0:.0f} s"]
            for ident, frame in sys._current_frames().items():
                if ident != threading.get_ident():
                    lines.append(f"thread {names.get(ident, ident)}:")
                    lines += [ln.rstrip("\n") for ln in traceback.format_stack(frame)]
            print("\n".join(lines), file=out, flush=True)

    threading.Thread(target=dump, name="kopt-stacks", daemon=True).start()
    return stop
