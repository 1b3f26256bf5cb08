"""A worker error in one line: what a failed step's message says."""

from __future__ import annotations

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
    return " ".join(kept) or type(exc).__name__
