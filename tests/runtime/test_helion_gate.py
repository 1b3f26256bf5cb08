"""tests/runtime/test_helion_gate.py: gate 1 for an edit of the Triton
module Helion generates, on a recorded capture (tests/fixtures/helion/
softmax-capture.json: examples/helion/softmax.py captured by kopt-worker on
an H200). The generated module holds the host function that launches the
kernel; an edit may change the @triton.jit kernels only, which the gate
judges as for any kernel. Prints TAP."""

import json
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import static_gate as G  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402


gen = json.load(open(os.path.join(top, "tests", "fixtures", "helion", "softmax-capture.json")))["kernel"]["source"]
r = G.report(gen, gen)
ok(not r["ok"] and "helper 'softmax'" in r["reason"],
   "the plain gate refuses Helion's own module: its host function is no @triton.jit", r)
r = G.report_helion(gen, gen)
ok(r["ok"] and "_helion_softmax" in r["reason"], "Helion's module unchanged passes gate 1 as a Helion edit", r)
ev = gen.replace("eviction_policy='evict_first'", "eviction_policy='evict_last'")
r = G.report_helion(ev, gen)
ok(ev != gen and r["ok"], "an edit of the kernel (its load's eviction policy) passes", r)
grid = gen.replace("_BLOCK_SIZE_0 - 1) // _BLOCK_SIZE_0,)", "_BLOCK_SIZE_0 - 1) // _BLOCK_SIZE_0 // 2,)")
r = G.report_helion(grid, gen)
ok(grid != gen and not r["ok"] and "host code" in r["reason"],
   "an edit of the host function (the grid halved) is refused, naming the host code", r)
imp = gen.replace("import torch\n", "import torch\nimport torch.cuda\n", 1)
r = G.report_helion(imp, gen)
ok(imp != gen and not r["ok"] and "host code" in r["reason"], "an added torch import is refused", r)
osi = gen.replace("import triton\n", "import triton\nimport os\n", 1)
r = G.report_helion(osi, gen)
ok(osi != gen and not r["ok"] and "'os'" in r["reason"], "an import of os beside the kernel is refused by the gate", r)
st = gen.replace("tl.store(out + (indices_0[:, None] * 4096", "tl.store(out + (indices_0[:, None] * 4097", 1)
r = G.report_helion(st, gen)
ok(st != gen and r["ok"] and r["memcheck"] and "store" in r["memcheck"][0],
   "a store whose index differs from Helion's is not proven in bounds: it goes to the memcheck", r)
done()
