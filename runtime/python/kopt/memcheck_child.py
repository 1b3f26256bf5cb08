"""kopt.memcheck_child: the child that compute-sanitizer runs for a
candidate's memcheck (memcheck.py starts it, gate 1).

``python3 -m kopt.memcheck_child REQUEST.json`` loads and compiles the
model of the verify request, swaps the candidate in and runs one call.
"""

from __future__ import annotations

import json
import sys

import torch

from . import precision as P
from .inductor import compile_hooks, compile_problem
from .loader import load_problem
from .verify import Swaps, build_candidate


def child(path: str) -> int:
    """Under compute-sanitizer: one call of the model with the candidate in."""
    with open(path) as f:
        req = json.load(f)
    problem = load_problem(req["model"], int(req.get("seed", 0)))
    # compiled as the worker's capture did, so that its graph and the
    # kernel the candidate edits come from the build's graph cache, not
    # from another autotuning under the sanitizer
    P.set_policy(P.CAPTURE)
    compile_hooks()
    c = compile_problem(problem, req.get("variant") or {"name": "default"})
    decl, obj = build_candidate(c, req["kernel"], req["candidate"], "memcheck")
    inputs = c.problem.inputs(0)
    with Swaps(c, {decl.var: obj}):
        c.run(inputs)
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python3 -m kopt.memcheck_child REQUEST.json", file=sys.stderr)
        sys.exit(2)
    sys.exit(child(sys.argv[1]))
