#!/usr/bin/env python3
"""tests/replay-worker.py: a TEST DOUBLE of kopt-worker that replays replies
recorded on the GPU machine (tests/fixtures/gpu/) through the worker
protocol, so that the engine's rules parse real capture, profile and verify
results on a machine without a GPU.

It serves the small softmax model only: capture and profile answer the
recorded replies; verify answers the recorded reply of the candidate whose
config matches (the faster launch config passes, the baseline's own config
fails the perf gate), any other candidate gets the recorded perf failure;
stitch answers the recorded verify numbers without the kernel timings; race
answers the recorded model time for every variant.
"""
import json
import os
import sys

FIX = os.path.join(os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), "..")), "tests", "fixtures", "gpu")


def load(name):
    with open(os.path.join(FIX, name)) as f:
        d = json.load(f)
    return d.get("reply", d)


def main():
    out = sys.stdout
    hello = load("hello.json")
    out.write(json.dumps(hello) + "\n")
    out.flush()
    cap = load("capture-small_softmax.json")["result"]
    prof = load("profile-small_softmax.json")["result"]
    good = load("verify-pass-small_softmax.json")
    same = load("verify-perf-small_softmax.json")
    good_cfg = json.load(open(os.path.join(FIX, "verify-pass-small_softmax.json")))["request"]["candidate"]["config"]
    for line in sys.stdin:
        req = json.loads(line)
        op = req.get("op")
        if op == "capture":
            rep = {"ok": True, "result": cap}
        elif op == "profile":
            rep = {"ok": True, "result": prof}
        elif op == "verify":
            cfg = (req.get("candidate") or {}).get("config")
            rep = good if cfg == good_cfg else same
        elif op == "stitch":
            nums = dict(good["result"]["numbers"])
            nums.pop("static", None)
            perf = dict(nums["perf"])
            perf.pop("base_ns", None)
            perf.pop("cand_ns", None)
            nums["perf"] = perf
            mb, mc = sorted(perf["model_base_ns"]), sorted(perf["model_cand_ns"])
            rep = {"ok": True, "result": {"numbers": nums, "output_code": cap["output_code"],
                                          "base_ns_per_call": mb[len(mb) // 2], "opt_ns_per_call": mc[len(mc) // 2]}}
        elif op == "race":
            # one recorded model time for every variant: the race confirms the stitches
            rep = {"ok": True, "result": {"calls": 20, "ns": [prof["model_ns_per_call"]] * len(req.get("variants") or [])}}
        elif op == "ping":
            rep = {"ok": True, "result": {}}
        else:
            rep = {"ok": False, "error": f"replay worker: no recording for {op}", "fatal": False}
        rep = dict(rep)
        rep["id"] = req.get("id")
        out.write(json.dumps(rep) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
