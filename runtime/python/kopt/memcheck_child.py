"""kopt.memcheck_child: the children of a candidate's memcheck (memcheck.py
starts them, gate 1).

``python3 -m kopt.memcheck_child REQUEST.json`` (under compute-sanitizer)
loads and compiles the model of the verify request, swaps the candidate in
and runs one call.

``python3 -m kopt.memcheck_child --guard REQUEST.json`` does the same with
torch's CUDA allocator replaced by kopt-guard.so ($KOPT_GUARD_LIB,
runtime/guard.c): every tensor in a range of addresses of its own with
unmapped guards around it, so that an access moved past its tensor, by any
amount up to the guard, faults. The variant compiles without CUDA graphs
(their private pools are the caching allocator's; the kernels are the
same). It prints SET_UP once the model is compiled and the candidate
built. Its exit status: 0 clean; EXIT_FAULT when the call with the
candidate failed (an illegal address, or any error of that call), with the
error as the last line; EXIT_SETUP when it could not get that far (the
allocator, the model, its compile or the plain call), with why.
"""

from __future__ import annotations

import json
import os
import sys

import torch

from . import precision as P
from .inductor import compile_hooks, compile_problem
from .loader import load_problem
from .memcheck import EXIT_FAULT, EXIT_SETUP, SET_UP, guard_lib, without_graphs
from .verify import Swaps, build_candidate


def prepared(req: dict, variant: dict):
    """(compiled model, {kernel variable: the candidate's}, inputs)"""
    problem = load_problem(req["model"], int(req.get("seed", 0)))
    # compiled as the worker's capture did, so that its graph and the
    # kernel the candidate edits come from the build's graph cache, not
    # from another autotuning under the sanitizer
    P.set_policy(P.CAPTURE)
    compile_hooks()
    c = compile_problem(problem, variant)
    decl, obj = build_candidate(c, req["kernel"], req["candidate"], "memcheck")
    return c, {decl.var: obj}, c.problem.inputs(0)


def child(path: str) -> int:
    """Under compute-sanitizer: one call of the model with the candidate in."""
    with open(path) as f:
        req = json.load(f)
    c, swaps, inputs = prepared(req, req.get("variant") or {"name": "default"})
    with Swaps(c, swaps):
        c.run(inputs)
    torch.cuda.synchronize()
    return 0


def _line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def guarded(path: str) -> int:
    """With kopt-guard.so as torch's allocator: one call of the model with
    the candidate in; the status says how it went (above)."""
    try:
        lib = guard_lib()
        if lib is None:
            raise FileNotFoundError(f"no guarded allocator at KOPT_GUARD_LIB='{os.environ.get('KOPT_GUARD_LIB', '')}'")
        alloc = torch.cuda.memory.CUDAPluggableAllocator(lib, "kopt_guard_malloc", "kopt_guard_free")
        torch.cuda.memory.change_current_allocator(alloc)
        with open(path) as f:
            req = json.load(f)
        c, swaps, inputs = prepared(req, without_graphs(req.get("variant") or {"name": "default"}))
    except Exception as e:  # the setup's, not the candidate's
        print(f"setup: {_line(e)}", flush=True)
        return EXIT_SETUP
    print(SET_UP, flush=True)
    try:
        with Swaps(c, swaps):
            c.run(inputs)
        torch.cuda.synchronize()
    except Exception as e:
        print(_line(e), flush=True)
        return EXIT_FAULT
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[1] == "--guard":
        return guarded(argv[2])
    if len(argv) == 2:
        return child(argv[1])
    print("usage: python3 -m kopt.memcheck_child [--guard] REQUEST.json", file=sys.stderr)
    return 2


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stdout.flush()
    sys.stderr.flush()
    # after a fault the CUDA context is lost: leave without tearing it down
    os._exit(code)
