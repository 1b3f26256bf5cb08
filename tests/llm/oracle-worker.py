#!/usr/bin/env python3
"""tests/llm/oracle-worker.py: a TEST DOUBLE of kopt-worker for the LLM
agents' tests. It serves the small softmax model recorded on the GPU
machine (tests/fixtures/gpu/: the hello, its capture and profile) and
times candidates by rule, as tests/llm/oracle_server.py's edits expect:

  - a candidate with a source: gate 1 fails ("does not build") when its
    parentheses do not balance or it does not define the kernel; else it
    runs 1.1x faster for each line "# kopt-oracle: step N" it holds, up
    to 4 (1.4641x), whatever its launch config: the times are the
    recorded passing verify's, the candidate's scaled by that factor;
  - a launch config alone: the recorded verify of the faster config
    ({"XBLOCK": 1, "R0_BLOCK": 1024, "num_warps": 4, "num_stages": 1})
    for that config, the recorded perf failure for any other.

Its profile rows carry `aten`, taken from the recorded output code as the
worker does now (runtime/python/kopt/kernels.py, aten_ops): the recording
predates the field. Stitch and race answer the recorded numbers, as
tests/replay-worker.py does.
"""
import copy
import json
import os
import re
import sys

FIX = os.path.join(os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), "..", "..")),
                   "tests", "fixtures", "gpu")
STEP = "# kopt-oracle: step "


def load(name):
    with open(os.path.join(FIX, name)) as f:
        return json.load(f)


def aten_ops(code: str) -> dict:
    out = {}
    for m in re.finditer(r"^(\w+) = async_compile\.triton\('", code, re.M):
        ops = []
        for line in reversed(code[:m.start()].splitlines()):
            if not line.startswith("#"):
                break
            a = re.search(r"Original ATen: \[([^\]]*)\]", line)
            if a:
                ops = [o.strip() for o in a.group(1).split(",") if o.strip()]
                break
        out[m.group(1)] = ops
    return out


def balanced(src: str) -> bool:
    depth = 0
    for c in src:
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def verify(req, cap, good, same, good_cfg):
    cand = req.get("candidate") or {}
    src, cfg = cand.get("source"), cand.get("config")
    kernel = req.get("kernel")
    if src is None:
        return good if cfg == good_cfg else same
    if not balanced(src) or ("def " + kernel + "(") not in src:
        why = "does not build: SyntaxError: '(' was never closed" if not balanced(src) else \
            "does not build: the module does not define " + kernel
        return {"ok": True, "result": {"numbers": {"static": {"ok": False, "reason": why}}}}
    steps = min(sum(1 for line in src.splitlines() if STEP in line), 4)
    factor = 1.1 ** steps
    rep = copy.deepcopy(good)
    res = rep["result"]
    for k in ("verdict", "gate", "reason"):
        res.pop(k, None)
    nums = res["numbers"]
    nums["static"] = {"ok": True, "reason": "same name and signature"}
    perf = nums["perf"]
    perf["cand_ns"] = [b / factor for b in perf["base_ns"]]
    perf["model_cand_ns"] = [mb - (b - b / factor) for mb, b in zip(perf["model_base_ns"], perf["base_ns"])]
    return rep


def main():
    out = sys.stdout
    hello = load("hello.json")
    out.write(json.dumps(hello) + "\n")
    out.flush()
    cap = load("capture-small_softmax.json")["reply"]["result"]
    prof = copy.deepcopy(load("profile-small_softmax.json")["reply"]["result"])
    ops = aten_ops(cap["output_code"])
    for row in prof["kernels"]:
        if ops.get(row["name"]):
            row["aten"] = ops[row["name"]]
    good = load("verify-pass-small_softmax.json")["reply"]
    same = load("verify-perf-small_softmax.json")["reply"]
    good_cfg = load("verify-pass-small_softmax.json")["request"]["candidate"]["config"]
    for line in sys.stdin:
        req = json.loads(line)
        op = req.get("op")
        if op == "capture":
            rep = {"ok": True, "result": cap}
        elif op == "profile":
            rep = {"ok": True, "result": prof}
        elif op == "verify":
            rep = verify(req, cap, good, same, good_cfg)
        elif op == "stitch":
            nums = copy.deepcopy(good["result"]["numbers"])
            nums.pop("static", None)
            perf = nums["perf"]
            perf.pop("base_ns", None)
            perf.pop("cand_ns", None)
            mb, mc = sorted(perf["model_base_ns"]), sorted(perf["model_cand_ns"])
            rep = {"ok": True, "result": {"numbers": nums, "output_code": cap["output_code"],
                                          "base_ns_per_call": mb[len(mb) // 2], "opt_ns_per_call": mc[len(mc) // 2]}}
        elif op == "race":
            rep = {"ok": True, "result": {"calls": 20, "ns": [prof["model_ns_per_call"]] * len(req.get("variants") or [])}}
        elif op == "ping":
            rep = {"ok": True, "result": {}}
        else:
            rep = {"ok": False, "error": "oracle worker: no recording for " + str(op), "fatal": False}
        rep = dict(rep)
        rep["id"] = req.get("id")
        out.write(json.dumps(rep) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
