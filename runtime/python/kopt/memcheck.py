"""kopt.memcheck: compute-sanitizer's memcheck on a candidate, for gate 1.

The static gate proves most candidates' loads and stores in bounds (the
same index and a mask at least as strict as the original kernel's); the
ones it cannot prove it lists (static_gate.report()["memcheck"]). For those,
the worker runs the model once with the candidate swapped in, in a child
Python under ``compute-sanitizer --tool memcheck``, before the candidate
counts as having passed gate 1: an out-of-bounds or misaligned access fails
it with compute-sanitizer's first report as the reason.

Environment (the worker's; KOPT_* variables reach it):

- ``KOPT_MEMCHECK``: ``auto`` (the default: run it where compute-sanitizer
  is found, else let the candidate through with a note in its reason),
  ``require`` (a candidate that needs it fails where compute-sanitizer is
  not found) or ``off`` (never run it; the reason says so);
- ``KOPT_COMPUTE_SANITIZER``: its path (default: ``compute-sanitizer`` on
  PATH, then ``$CUDA_HOME/bin``, ``/usr/local/cuda/bin``);
- ``KOPT_MEMCHECK_TIMEOUT``: seconds for the child (default 300);
- ``KOPT_MEMCHECK_PADDING``: bytes of padding compute-sanitizer puts after
  every allocation (default 16 MiB; 0: none).

The child runs with ``PYTORCH_NO_CUDA_MEMORY_CACHING=1``: PyTorch's caching
allocator hands out tensors from segments it allocated whole, and
compute-sanitizer knows only the segments, so a write past one tensor
into the next of the same segment (the reference output, another
argument) would be in bounds to it. Without the cache, each tensor is an
allocation of its own, and an access past its end is reported.

compute-sanitizer also puts ``--padding`` bytes that belong to no
allocation after each one. Without them an access past a tensor's end
can still land in the next allocation, which compute-sanitizer takes as
in bounds: a pointer moved by an amount the kernel computes from its
number arguments (``x_ptr + n``), which the static gate cannot follow to
a buffer, reads the neighbouring tensor, an output's previous contents
among them. With the padding, any such move shorter than it is
reported, wherever the allocator put the neighbour.

``python3 -m kopt.memcheck_child REQUEST.json`` is the child
(memcheck_child.py): it loads and compiles the model of the verify
request, swaps the candidate in and runs one call. This module runs it and
reads what compute-sanitizer says; it imports nothing of the package's
that loads or verifies (verify.py imports it), and nothing at module level
imports torch, so the CPU tests import it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

EXIT_ERRORS = 86  # compute-sanitizer's exit status when it found errors
DEFAULT_TIMEOUT = 300.0
DEFAULT_PADDING = 16 << 20  # bytes after each allocation (above)


def policy() -> str:
    p = os.environ.get("KOPT_MEMCHECK", "auto").strip().lower() or "auto"
    return p if p in ("auto", "require", "off") else "auto"


def find_sanitizer() -> str | None:
    p = os.environ.get("KOPT_COMPUTE_SANITIZER")
    if p:
        return p if os.access(p, os.X_OK) else None
    p = shutil.which("compute-sanitizer")
    if p:
        return p
    for base in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if base:
            c = os.path.join(base, "bin", "compute-sanitizer")
            if os.access(c, os.X_OK):
                return c
    return None


def padding() -> int:
    """KOPT_MEMCHECK_PADDING's bytes, or the default where it is not a
    count (a typo must not turn the padding off)."""
    v = os.environ.get("KOPT_MEMCHECK_PADDING", "").strip()
    return int(v) if v.isdigit() else DEFAULT_PADDING


def command(sanitizer: str, python: str, request_path: str) -> list[str]:
    pad = padding()
    return [sanitizer, "--tool", "memcheck", "--error-exitcode", str(EXIT_ERRORS), "--print-limit", "5",
            *(["--padding", str(pad)] if pad else []), python, "-m", "kopt.memcheck_child", request_path]


def parse(rc: int, output: str) -> tuple[bool, str]:
    """(clean, one line) from the child's exit status and its output."""
    lines = [ln.strip("= \t") for ln in output.splitlines()]
    summary = next((ln for ln in reversed(lines) if ln.startswith("ERROR SUMMARY")), None)
    if rc == EXIT_ERRORS or (summary and not summary.startswith("ERROR SUMMARY: 0 ")):
        first = next((ln for ln in lines if ln.startswith(("Invalid", "Misaligned", "Out-of-range",
                                                            "Program hit", "Malloc", "Barrier"))), None)
        where = next((ln for ln in lines if ln.startswith("at ")), None)
        text = first or summary or "errors"
        if where:
            text += f" {where}"
        return False, f"compute-sanitizer memcheck: {text}"[:400]
    if rc != 0:
        # the child's own last line (its exception), not compute-sanitizer's
        # (its lines begin with "=========", its summary last)
        own = [ln.strip() for ln in output.splitlines() if ln.strip() and not ln.startswith("=========")]
        last = own[-1] if own else f"exit status {rc}"
        return False, f"compute-sanitizer memcheck could not run the candidate: {last}"[:400]
    return True, "compute-sanitizer memcheck clean"


def run(req: dict, kernel: str, cand: dict, why: list[str]) -> dict:
    """The memcheck of one candidate: {"ran", "ok", "reason"}."""
    from .static_gate import memcheck_text

    what = f"needs a memcheck ({memcheck_text(why, 1)})"
    pol = policy()
    if pol == "off":
        return {"ran": False, "ok": True, "reason": f"{what}; skipped: KOPT_MEMCHECK=off"}
    san = find_sanitizer()
    if san is None:
        ok = pol != "require"
        return {"ran": False, "ok": ok,
                "reason": f"{what}; compute-sanitizer not found"
                          f"{'' if ok else ' and KOPT_MEMCHECK=require'}"}
    child = {"model": req.get("model"), "variant": req.get("variant"), "seed": req.get("seed", 0),
             "kernel": kernel, "candidate": cand}
    fd, path = tempfile.mkstemp(prefix="kopt-memcheck-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(child, f)
        env = dict(os.environ)
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"  # each tensor its own allocation (above)
        timeout = float(os.environ.get("KOPT_MEMCHECK_TIMEOUT", DEFAULT_TIMEOUT))
        try:
            p = subprocess.run(command(san, sys.executable or "python3", path), env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"ran": True, "ok": False, "reason": f"compute-sanitizer memcheck took more than "
                                                        f"{timeout:g} s; {what}"}
        except OSError as e:
            return {"ran": False, "ok": False, "reason": f"{what}; cannot run {san}: {e}"}
        ok, line = parse(p.returncode, p.stdout.decode("utf-8", "replace"))
        # a failure's outcome first: the reasons travel cut at 400 characters
        return {"ran": True, "ok": ok, "reason": f"{what}; {line}" if ok else f"{line}; {what}"}
    finally:
        os.unlink(path)
