"""A worker error in one line: what a failed step's message says."""

from __future__ import annotations

import os
import traceback

# lines torch appends to every compile error, which say nothing of this one
_BOILERPLATE = ("Set TORCHDYNAMO_VERBOSE=", "For even more developer context", "You can suppress this exception",
                "import torch._dynamo", "torch._dynamo.config.suppress_errors")


def error_line(exc: BaseException) -> str:
    """The exception's type and message in one line. Torch's compile errors
    are several lines: the backend that failed, the error it raised, then
    advice on logging; the last line of the traceback, which a failed step
    used to quote, was the advice. The advice and blank lines are left out
    and the rest joined."""
    text = "".join(traceback.format_exception_only(type(exc), exc))
    lines = [ln.strip() for ln in text.splitlines()]
    kept = [ln for ln in lines if ln and not ln.startswith(_BOILERPLATE)]
    return (" ".join(kept) or type(exc).__name__) + sandbox_hint(exc)


def _under(path: str, folders: str) -> bool:
    for f in folders.split(":"):
        f = f.rstrip("/")
        if f and (path == f or path.startswith(f + "/")):
            return True
    return False


def sandbox_hint(exc: BaseException) -> str:
    """What to do when the worker's sandbox (runtime/sandbox.h) denied a
    file: a model that reads a file beside the spec's folders (a module
    of its own, weights) fails with a bare PermissionError otherwise. Said
    only for a denied path outside what the worker may read
    ($KOPT_SANDBOX_READ, which koptmake sets) or write (its scratch
    folder, $KOPT_SANDBOX_WRITE), the error or one it was raised from."""
    reads = os.environ.get("KOPT_SANDBOX_READ")
    if reads is None:
        return ""  # no sandbox koptmake set up
    allowed = reads + ":" + os.environ.get("KOPT_SANDBOX_WRITE", "")
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, PermissionError) and isinstance(exc.filename, (str, bytes)) and exc.filename:
            path = os.path.abspath(os.fsdecode(exc.filename))
            real = os.path.realpath(path)
            if not _under(path, allowed) and not _under(real, allowed):
                return (" (koptmake's workers read only the spec's folders and those it allows, and write "
                        "only their scratch folder: to let a model read this file, add "
                        f"{os.path.dirname(real)} to allow_roots in the spec's defaults block, "
                        "or to KOPT_SANDBOX_READ)")
            return ""
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return ""
