"""tests/runtime/test_transforms_cpu.py: kopt.transforms compute what
Inductor's kernels compute. Each transform's text and the recorded kernel
it came from (tests/fixtures/kernels/, their rows cut to a few: every
stride stays) run program by program on the CPU under tests/runtime/
tlsim.py, a TEST DOUBLE of Triton, on the same inputs, at several launch
configs; the elements each writes and their values must agree (1e-5,
relative). The hand-written var_norm.py computes the norm its header
names (against torch). A transform broken on purpose is caught, and
onepass=sumsq's lost digits where the mean dwarfs the spread show. Needs
torch (any version, CPU): Debian's python3-torch will do. Prints TAP."""

import os
import re
import sys

import torch

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tlsim as S  # noqa: E402
from kopt import knobs as N  # noqa: E402
from tap import ok, done  # noqa: E402

FIX = os.path.join(top, "tests", "fixtures", "kernels")
ROWS = 4


def fixture(name):
    with open(os.path.join(FIX, name)) as f:
        return f.read()


def wave(base=3.0):
    return lambda o: (torch.sin(o.double() * 0.37) * 2 + torch.cos(o.double() * 0.011) + base).float()


def run(src, cfg, fill=None):
    """The kernel's writes, {buffer: {offset: value}}, on ROWS rows: a
    pointer named *ptr0 or out* holds ROWS rows, any other one row (a
    weight)."""
    src = S.shrink_rows(src, ROWS)
    names = [a.split(":")[0].strip() for a in re.search(r"^def \w+\((.*)\):", src, re.M)[1].split(",")]
    rn = int(re.search(r"^    r0_numel = (\d+)$", src, re.M)[1])
    bufs = {n: S.Buffer(n, ROWS * rn if ("ptr0" in n or n.startswith("out")) else rn,
                        fill=(fill or wave(3.0 + len(n) % 3))) for n in names if "ptr" in n}
    args = {n: S.Ptr(b) for n, b in bufs.items()}
    args.update(xnumel=ROWS, r0_numel=rn)
    S.run(S.load_kernel(src), args, cfg)
    return {n: b.writes for n, b in bufs.items()}


def differ(a, b, tol=1e-5):
    """Why two runs' writes differ, or None."""
    for n in a:
        if set(a[n]) != set(b[n]):
            return f"{n}: {len(a[n])} elements written against {len(b[n])}, or others"
        x = torch.tensor([a[n][k] for k in sorted(a[n])], dtype=torch.float64)
        y = torch.tensor([b[n][k] for k in sorted(b[n])], dtype=torch.float64)
        if len(x) and not torch.allclose(x, y, rtol=tol, atol=tol * float(x.abs().max())):
            return f"{n}: values differ by up to {float((x - y).abs().max()):.3g}"
    return None


CONFIGS = ({"XBLOCK": 1, "R0_BLOCK": 1024}, {"XBLOCK": 2, "R0_BLOCK": 768})
for fname, edit in (("var_norm.py", "onepass=welford"), ("var_norm.py", "onepass=sumsq"),
                    ("var_norm.py", "rloop=reverse"), ("layernorm.py", "rloop=reverse"),
                    ("rmsnorm.py", "rloop=reverse"), ("softmax.py", "rloop=reverse"),
                    ("var_norm.py", "onepass=welford+rloop=reverse+grid=3"),
                    ("layernorm.py", "rloop=reverse+grid=2"), ("var_norm.py", "onepass=sumsq+persist=on")):
    src = fixture(fname)
    out = N.apply(src, edit)
    bad = []
    for cfg in CONFIGS:
        if "persist=on" in edit:
            cfg = N.persist_config(src, cfg)
        a, b = run(src, cfg), run(out, cfg)
        if not any(a.values()):
            bad.append(f"{cfg}: nothing written")
        why = differ(a, b)
        if why:
            bad.append(f"{cfg}: {why}")
    ok(not bad, f"{fname} {edit}: the same elements written, the same values, at {len(CONFIGS)} configs",
       "\n".join(bad))

# the hand-written fixture computes the norm it says it is
vn = fixture("var_norm.py")
got = run(vn, {"XBLOCK": 1, "R0_BLOCK": 2048})["out_ptr2"]
x = wave(3.0 + len("in_ptr0") % 3)(torch.arange(ROWS * 8192)).double().view(ROWS, 8192)
m = x.mean(1, keepdim=True)
ref = (x - m) / torch.sqrt(((x - m) ** 2).mean(1, keepdim=True) + 1e-5)
y = torch.tensor([got[k] for k in range(ROWS * 8192)], dtype=torch.float64).view(ROWS, 8192)
ok(torch.allclose(y, ref, atol=1e-4), "var_norm.py computes (x - m) / sqrt(((x - m) ** 2).mean(1) + eps)",
   float((y - ref).abs().max()))

# the comparison catches a transform broken on purpose: the walk back one
# block short (the row's first block never computed, its last twice)
broken = N.apply(fixture("layernorm.py"), "rloop=reverse").replace(
    "r0_offset = (r0_numel - 1) // R0_BLOCK * R0_BLOCK - kopt_r0_offset",
    "r0_offset = (r0_numel - 1) // R0_BLOCK * R0_BLOCK - kopt_r0_offset + R0_BLOCK")
try:
    why = differ(run(fixture("layernorm.py"), CONFIGS[0]), run(broken, CONFIGS[0]))
except S.OutOfBounds as e:
    why = f"out of bounds: {e}"
ok(why is not None, "a walk back one block off is caught", why)
sloppy = N.apply(vn, "onepass=welford").replace("    tmp10 = kopt_m2_r[:, None]", "    tmp10 = kopt_m2_r[:, None] * 1.001")
ok(differ(run(vn, CONFIGS[0]), run(sloppy, CONFIGS[0])) is not None, "a variance off by 0.1% is caught")

# where the mean dwarfs the spread, the sum of squares loses digits that
# Welford keeps: both are offered, and the gates judge
far = wave(4000.0)
base = run(vn, CONFIGS[0], far)
ok(differ(base, run(N.apply(vn, "onepass=welford"), CONFIGS[0], far), 1e-3) is None and
   differ(base, run(N.apply(vn, "onepass=sumsq"), CONFIGS[0], far), 1e-3) is not None,
   "at a mean of 4000 against a spread of 3, onepass=welford agrees and onepass=sumsq does not")
done()
