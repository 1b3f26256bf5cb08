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
  not found, or the guarded run below could not be made) or ``off`` (never
  run either; the reason says so);
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

A move longer than the padding jumps it. So before compute-sanitizer's
run comes the guarded run: the same call in a child whose CUDA allocator
is kopt-guard.so (runtime/guard.c, ``KOPT_GUARD_LIB``; kopt-worker sets
it to the copy beside itself), which gives each tensor addresses of its
own with at least 256 MiB (and 8 times the tensor's size) that are not
mapped on either side, each a random size. An access moved past its
tensor by less than that faults, and where a longer move lands changes
from run to run, mapped in under 1 case in 17. It is a plain call, not
an instrumented one: it costs what a call and a compile from the cache
cost. A guarded run that could not be set up (the allocator, the model)
is said in the reason and leaves the candidate to compute-sanitizer; one
whose call with the candidate failed fails the candidate.

``python3 -m kopt.memcheck_child [--guard] REQUEST.json`` is the child
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
import signal
import subprocess
import sys
import tempfile

from .graphcopy import variant_graphs

EXIT_ERRORS = 86  # compute-sanitizer's exit status when it found errors
# the guarded child's (memcheck_child.py): its call failed, or it could not make it
EXIT_FAULT, EXIT_SETUP = 90, 91
SET_UP = "kopt-guard: set up"  # its line once the model is compiled and the candidate built
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


def without_graphs(variant: dict) -> dict:
    """variant with Inductor's CUDA graphs off (a mode's or its option), for
    the guarded run: their private memory pools are the caching
    allocator's, and the kernels are the same"""
    if not variant_graphs(variant):
        return variant
    return {**variant, "options": {**(variant.get("options") or {}), "triton.cudagraphs": False}}


def guard_lib() -> str | None:
    """kopt-guard.so, the guarded allocator (runtime/guard.c): where
    $KOPT_GUARD_LIB names a file (kopt-worker sets it to its own folder's
    copy)."""
    p = os.environ.get("KOPT_GUARD_LIB", "")
    return p if p and os.path.isfile(p) else None


def parse_guard(rc: int, output: str) -> tuple[bool, bool, str]:
    """(ran, clean, one line) from the guarded child's exit status and its
    output (memcheck_child.guarded's statuses)."""
    own = [ln.strip() for ln in output.splitlines() if ln.strip() and ln.strip() != SET_UP]
    last = own[-1] if own else f"exit status {rc}"
    if rc == 0:
        return True, True, "guarded run clean"
    if rc == EXIT_SETUP:
        return False, True, f"guarded run not made: {last}"
    if rc == EXIT_FAULT:
        return True, False, f"guarded run: the call with the candidate failed: {last}"
    if SET_UP not in output:
        # ended before the call (the allocator, the model's compile): the
        # set-up's, as EXIT_SETUP
        said = f": {own[-1]}" if own else ""
        return False, True, f"guarded run not made: it ended before the call (exit status {rc}){said}"
    return True, False, f"guarded run could not run the candidate: {last}"


def child_env(guard: bool) -> dict:
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if not guard:
        env["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"  # each tensor its own allocation (above)
    return env


def start(cmd: list[str], guard: bool, timeout: float) -> tuple[int | None, str]:
    """(status, output) of a child; the status None where it took longer
    than timeout (the output what it printed until then); OSError where it
    cannot start"""
    # a group of its own: on a timeout its compile workers go with it (they
    # would hold the output's pipe open)
    with subprocess.Popen(cmd, env=child_env(guard), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, start_new_session=True) as p:
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, _ = p.communicate()
            return None, out.decode("utf-8", "replace")
    return p.returncode, out.decode("utf-8", "replace")


def run_guarded(python: str, path: str, timeout: float) -> tuple[bool, bool, str]:
    """(ran, clean, one line) of the guarded run"""
    lib = guard_lib()
    if lib is None:
        return False, True, "guarded run not made: no kopt-guard.so (KOPT_GUARD_LIB)"
    try:
        got = start([python, "-m", "kopt.memcheck_child", "--guard", path], True, timeout)
    except OSError as e:
        return False, True, f"guarded run not made: cannot run {python}: {e}"
    rc, out = got
    if rc is None:
        # a compile that long is not the candidate's; a call that long is
        if SET_UP not in out:
            return False, True, f"guarded run not made: its set-up took more than {timeout:g} s"
        return True, False, f"the guarded run's call with the candidate took more than {timeout:g} s"
    return parse_guard(rc, out)


def run_sanitizer(python: str, path: str, timeout: float) -> tuple[bool, bool, str]:
    """(ran, clean, one line) of compute-sanitizer's run"""
    san = find_sanitizer()
    if san is None:
        return False, True, "compute-sanitizer not found"
    try:
        got = start(command(san, python, path), False, timeout)
    except OSError as e:
        return False, False, f"cannot run {san}: {e}"
    if got[0] is None:
        return True, False, f"compute-sanitizer memcheck took more than {timeout:g} s"
    ok, line = parse(*got)
    return True, ok, line


def run(req: dict, kernel: str, cand: dict, why: list[str], python: str | None = None) -> dict:
    """The memcheck of one candidate: {"ran", "ok", "reason"}. The guarded
    run first (a plain call, quick), then compute-sanitizer's; under
    KOPT_MEMCHECK=require both must run. python: the children's
    interpreter (this one's by default)."""
    from .static_gate import memcheck_text

    what = f"needs a memcheck ({memcheck_text(why, 1)})"
    pol = policy()
    if pol == "off":
        return {"ran": False, "ok": True, "reason": f"{what}; skipped: KOPT_MEMCHECK=off"}
    python = python or sys.executable or "python3"
    timeout = float(os.environ.get("KOPT_MEMCHECK_TIMEOUT", DEFAULT_TIMEOUT))
    child = {"model": req.get("model"), "variant": req.get("variant"), "seed": req.get("seed", 0),
             "kernel": kernel, "candidate": cand}
    fd, path = tempfile.mkstemp(prefix="kopt-memcheck-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(child, f)
        runs = [run_guarded(python, path, timeout)]
        if runs[0][1]:
            runs.append(run_sanitizer(python, path, timeout))
    finally:
        os.unlink(path)
    ran = any(r[0] for r in runs)
    short = pol == "require" and not all(r[0] for r in runs)  # one not made, where both must be
    ok = all(r[1] for r in runs) and not short
    lines = [r[2] for r in runs] + (["KOPT_MEMCHECK=require"] if short else [])
    # a failure's outcome first: the reasons travel cut at 400 characters
    failed = [r[2] for r in runs if not r[1]]
    if not ok and failed:
        return {"ran": ran, "ok": False, "reason": "; ".join(failed + [what])}
    return {"ran": ran, "ok": ok, "reason": "; ".join([what] + lines)}
