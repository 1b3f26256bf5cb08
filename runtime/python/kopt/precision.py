"""kopt.precision: the float32 flags, in one place.

A spec's precision (kopt(5)) is a policy: strict forbids TF32, tf32 and
loose allow it, for cuBLAS and cuDNN alike (set_policy, what the worker's
verifies run under). A build's captures always compile strict, whatever
the policy, and any process that compiles the build's graphs again (a
deployment, gate 1's memcheck child) does so under the same flags
(capture_flags): Inductor keys its graph cache on the matmul flags
(torch 2.11: torch.backends.cuda.matmul.fp32_precision, 'none' in a
fresh process and 'ieee' once allow_tf32 is set False) and writes them
into its GEMM templates, so that a compile under other flags misses the
build's graphs and picks max-autotune's configs anew
(tests/gpu/graph_cache.py).

Nothing here imports torch at module level (the CPU tests import it).
"""

from __future__ import annotations

import contextlib

# the flags a policy sets (their allow_tf32), and every object whose state
# setting them may change (torch 2.11's cuDNN keeps one per operator class
# below its own), to be put back, parents first
FLAGS = (("cuda", "matmul"), ("cudnn",))
TOUCHED = FLAGS + (("cudnn", "conv"), ("cudnn", "rnn"))
CAPTURE = "strict"


def flag_objects(paths) -> list:
    """the torch.backends objects at paths that this torch has"""
    import torch

    found = []
    for path in paths:
        obj = torch.backends
        for name in path:
            obj = getattr(obj, name, None)
        if obj is not None:
            found.append(obj)
    return found


def set_policy(policy: str) -> None:
    """the process's flags as the policy says: TF32 off where strict"""
    for obj in flag_objects(FLAGS):
        obj.allow_tf32 = policy != "strict"


def capture_flags():
    """The capture's flags (CAPTURE's policy) for the span of a compile;
    the caller's come back after it, so that the compiled code runs under
    the caller's."""
    return policy_flags(CAPTURE)


@contextlib.contextmanager
def policy_flags(policy: str):
    """A policy's flags for the span of a with block (a compile, a float64
    reference, a peak's timing); the caller's come back after it, each by
    the attribute that holds its state (fp32_precision where this torch
    has it, else allow_tf32: setting allow_tf32 back would leave torch
    2.11's 'none' as 'ieee', another graph-cache key)."""
    saved = []
    for obj in flag_objects(TOUCHED):
        for attr in ("fp32_precision", "allow_tf32"):
            try:   # torch 1.13's matmul object raises AssertionError for a name it lacks
                saved.append((obj, attr, getattr(obj, attr)))
                break
            except (AttributeError, AssertionError):
                pass
    try:
        set_policy(policy)
        yield
    finally:
        for obj, attr, value in saved:
            setattr(obj, attr, value)
