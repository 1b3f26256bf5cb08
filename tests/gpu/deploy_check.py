#!/usr/bin/env python3
"""tests/gpu/deploy_check.py: kopt.backend's first-call check on the GPU.

    deploy_check.py SPEC_DIR MODEL

Takes MODEL's deployment from SPEC_DIR/kopt-out/MODEL (a build's output),
copies it to a scratch folder and breaks it on purpose: the first swapped
kernel's source becomes Inductor's own source with its last store scaled by
1.5, a kernel that runs and is wrong. Then, in one process:

- with check=False the deployed model's output differs from torch.compile's
  (the break is real);
- with the check (the default), the first call puts the kernel back, a
  warning names it, and the output matches torch.compile's;
- the unbroken deployment keeps its kernels (no warning, nothing put back).
Prints TAP.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import warnings

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
import kopt  # noqa: E402
from kopt import kernels as K  # noqa: E402
from kopt.loader import load_module, to_device  # noqa: E402

spec_dir, name = sys.argv[1], sys.argv[2]
outdir = os.path.join(spec_dir, "kopt-out", name)
n = bad = 0


def ok(cond, what, diag=""):
    global n, bad
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {what}", flush=True)
    if not cond:
        bad += 1
        if diag:
            print("# " + str(diag)[:800].replace("\n", "\n# "))


table = json.load(open(os.path.join(outdir, "substitutions.json")))
code = open(os.path.join(outdir, "output_code.py")).read()
decls = {d.hash: d for d in K.split(code)}
h = next(k for k in table["kernels"] if k in decls)
src = table["kernels"][h].get("source") or decls[h].source
stores = list(re.finditer(r"tl\.store\(([^,]+), (tmp\w+)", src))
last = stores[-1]
broken = src[:last.start(2)] + f"{last.group(2)} * 1.5" + src[last.end(2):]
print(f"# breaking {decls[h].name}: its last store ({last.group(0)}) scaled by 1.5")
bdir = tempfile.mkdtemp(prefix="kopt-deploy-check-")
shutil.copy(os.path.join(outdir, "substitutions.json"), bdir)
t = json.load(open(os.path.join(bdir, "substitutions.json")))
t["kernels"][h]["source"] = broken
json.dump(t, open(os.path.join(bdir, "substitutions.json"), "w"))
# sealed here with this machine's key as koptmake seals a table (kopt.seal):
# the first-call check is what this tests, behind the seal, which would
# refuse the broken table as it is (tests/e2e/seal.sh)
from kopt import seal as S  # noqa: E402

S.write(bdir, ["substitutions.json"], S.key()[0])

mod = load_module(os.path.join(spec_dir, "models", name + ".py"))
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.manual_seed(0)
model = mod.Model(*to_device(list(mod.get_init_inputs()))).cuda().eval()
torch.manual_seed(0)
inputs = list(to_device(mod.get_inputs()))


def run(backend=None):
    torch._dynamo.reset()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f = torch.compile(model, backend=backend) if backend else torch.compile(model)
        with torch.no_grad():
            out = f(*inputs)
            torch.cuda.synchronize()
    return (out[0] if isinstance(out, (tuple, list)) else out).clone(), [str(x.message) for x in w]


ref, _ = run()
out, msgs = run(kopt.backend(bdir, check=False))
ok(not torch.allclose(out.double(), ref.double(), atol=1e-4, rtol=1e-4),
   "with check=False the broken kernel runs and the output differs from torch.compile's",
   f"max abs diff {(out.double() - ref.double()).abs().max().item():.3g}")
out, msgs = run(kopt.backend(bdir))
named = [m for m in msgs if decls[h].name in m]
ok(bool(named), "with the check, a warning names the kernel put back", msgs)
ok(torch.allclose(out.double(), ref.double(), atol=1e-4, rtol=1e-4),
   "with the check, the output matches torch.compile's", f"max abs diff {(out.double() - ref.double()).abs().max().item():.3g}")
if named:
    print("# " + named[0][:300])
out, msgs = run(kopt.backend(outdir))
ok(not [m for m in msgs if "put back" in m or decls[h].name in m] and
   torch.allclose(out.double(), ref.double(), atol=1e-4, rtol=1e-4),
   "the unbroken deployment keeps its kernels and matches torch.compile", msgs)
shutil.rmtree(bdir, ignore_errors=True)
print(f"1..{n}")
sys.exit(1 if bad else 0)
