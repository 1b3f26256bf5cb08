#!/usr/bin/env python3
"""tests/gpu/tplcut.py: max-autotune's hopeless template choices timed by
one call (runtime/python/kopt/tplcut.py), on the real Inductor.

    tplcut.py OUTDIR

Two children each compile a depthwise 5x5 convolution (groups = channels,
the grouped convolution template's worst case) and a product after it with
max-autotune-no-cudagraphs, each from empty Inductor and Triton caches of
its own: one with kopt.tplcut installed, one with KOPT_TEMPLATE_CUT=0.
Inductor prints each timing's choices, fastest first, and its benchmarking
seconds. Checks, printed as TAP:

- install() finds Inductor's selector and benchmarker in this torch;
- both children pick the same choice for every operator timed;
- with the cut, Inductor's benchmarking takes less time;
- both compiled models give eager's outputs;
- each child's seconds, and its benchmarking seconds, are printed.
"""

import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "runtime"))
sys.path.insert(0, here)
from tap import ok, done  # noqa: E402
import compile_child  # noqa: E402

CHILD = r'''
import json, os, sys, time
sys.path.insert(0, os.path.join(sys.argv[1], "runtime", "python"))
import torch
from kopt import tplcut, tplthreads
installed = tplcut.install()
tplthreads.install()
torch.manual_seed(0)
c = 384
m = torch.nn.Sequential(torch.nn.Conv2d(c, c, 5, stride=2, padding=2, groups=c), torch.nn.ReLU(),
                        torch.nn.Conv2d(c, 96, 1)).cuda().eval()
x = torch.randn(8, c, 112, 112, device="cuda")
comp = torch.compile(m, mode="max-autotune-no-cudagraphs")
t0 = time.perf_counter()
with torch.no_grad():
    got = comp(x)
    want = m(x)
torch.cuda.synchronize()
print(json.dumps({"installed": installed, "close": bool(torch.allclose(got, want, rtol=1e-2, atol=1e-2)),
                  "err": float((got - want).abs().max()), "seconds": round(time.perf_counter() - t0, 1)}))
'''


def picks(err):
    """each timed operator's chosen choice, in the order Inductor printed
    them: the first choice listed after its AUTOTUNE line"""
    got = []
    for block in re.split(r"^AUTOTUNE ", err, flags=re.M)[1:]:
        op = block.split("\n", 1)[0]
        m = re.search(r"^  (\S+) [0-9.]+ ms", block, flags=re.M)
        got.append((op, m.group(1) if m else None))
    return got


def child(out, name, env_extra):
    r = compile_child.run(CHILD, out, name, env_extra, drop=("KOPT_TEMPLATE_CUT",), timeout=560)
    r["picks"] = picks(r.pop("stderr"))
    return r


out = sys.argv[1] if len(sys.argv) > 1 else "tplcut-out"
os.makedirs(out, exist_ok=True)
full = child(out, "full", {"KOPT_TEMPLATE_CUT": "0"})
cut = child(out, "cut", {})
print(f"# full: {full}")
print(f"# cut: {cut}")
ok(cut.get("installed") is True, "install() wraps this torch's selector and benchmarker", cut)
ok(full.get("installed") is False, "KOPT_TEMPLATE_CUT=0: nothing installed", full)
ok(cut["picks"] and [p for _, p in cut["picks"]] == [p for _, p in full["picks"]],
   f"the same pick for each of the {len(cut['picks'])} operators timed", (cut["picks"], full["picks"]))
ok(cut.get("bench", 0) < full.get("bench", 0), "with the cut, Inductor's benchmarking takes less time",
   (cut.get("bench"), full.get("bench")))
ok(full.get("close") and cut.get("close"), "both compiled models give eager's outputs", (full.get("err"), cut.get("err")))
print(f"# compile: {full.get('seconds')} s timing every choice in full (benchmarking {full.get('bench')} s), "
      f"{cut.get('seconds')} s with the cut (benchmarking {cut.get('bench')} s)")
done()
