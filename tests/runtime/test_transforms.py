"""tests/runtime/test_transforms.py: kopt.transforms, the kernel transforms
that change the algorithm, on Inductor kernels recorded with torch 2.11
and triton 3.6 (tests/fixtures/kernels/; var_norm.py is written by hand in
Inductor's shape and says so). Each transform's text against its golden
output (tests/fixtures/transforms/FIXTURE.KIND-VALUE.py; KOPT_REGOLD=1 writes
them anew), that the text parses and passes gate 1 (kopt.static_gate)
against Inductor's kernel, its accesses proven or listed for the memcheck,
that each refuses with its reason where its preconditions do not hold, and
that the knobs (kopt.knobs) name, order, search and apply them. Standard
library only: no torch (test_transforms_cpu.py runs them). Prints TAP."""

import ast
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import knobs as N  # noqa: E402
from kopt import static_gate as G  # noqa: E402
from kopt import transforms as T  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

FIX = os.path.join(top, "tests", "fixtures", "kernels")
GOLD = os.path.join(top, "tests", "fixtures", "transforms")


def fixture(name):
    with open(os.path.join(FIX, name)) as f:
        return f.read()


# every transform that applies to a recorded kernel, with its golden text
CASES = [("var_norm.py", "onepass=welford"), ("var_norm.py", "onepass=sumsq"), ("var_norm.py", "rloop=reverse"),
         ("layernorm.py", "rloop=reverse"), ("rmsnorm.py", "rloop=reverse"), ("softmax.py", "rloop=reverse")]
for fname, edit in CASES:
    src = fixture(fname)
    out = N.apply(src, edit)
    gold = os.path.join(GOLD, f"{fname[:-3]}.{edit.replace('=', '-')}.py")
    head = (f"# {os.path.relpath(gold, top)}: the golden text of {edit} on tests/fixtures/kernels/{fname}\n"
            "# (kopt.transforms, checked by tests/runtime/test_transforms.py; the fixture's own text follows)\n")
    if os.environ.get("KOPT_REGOLD"):
        with open(gold, "w") as f:
            f.write(head + out)
    with open(gold) as f:
        want = f.read()
    want = want[len(head):] if want.startswith(head) else None
    ok(out == want, f"{fname} {edit}: the golden text", f"diff {gold} against N.apply")
    try:
        ast.parse(out)
        parsed = True
    except SyntaxError as e:
        parsed = e
    rep = G.report(out, src)
    ok(parsed is True and rep["ok"], f"{fname} {edit}: parses, and gate 1 passes it", (parsed, rep["reason"]))
    ok(all("differs from the original's" in m for m in rep["memcheck"]),
       f"{fname} {edit}: each access proven or listed for the memcheck ({len(rep['memcheck'])} listed)",
       rep["memcheck"])

# what each does, line by line
vn = fixture("var_norm.py")
w = N.apply(vn, "onepass=welford")
ok(w.count("for r0_offset in tl.range(0, r0_numel, R0_BLOCK):") == 2 and "_tmp10" not in w and
   "    tmp10 = kopt_m2_r[:, None]" in w and "triton_helpers.welford_reduce(" in w and
   "        _tmp2 = tl.where(r0_mask, tmp3, _tmp2)" in w,
   "onepass=welford: the squared deviations' loop gone, its sum Welford's in the first loop, the first sum kept")
q = N.apply(vn, "onepass=sumsq")
ok("    tmp10 = kopt_sq_r - tmp2 * (tmp2 / 8192.0)" in q and "        kopt_sq_next = _kopt_sq + tmp1 * tmp1" in q and
   q.count("for r0_offset in") == 2, "onepass=sumsq: the sum of squares beside the sum, centred after the loop")
r = N.apply(fixture("layernorm.py"), "rloop=reverse").split("\n")
at = r.index("    for kopt_r0_offset in tl.range(0, r0_numel, R0_BLOCK):")
ok(r[at + 1] == "        r0_offset = (r0_numel - 1) // R0_BLOCK * R0_BLOCK - kopt_r0_offset" and
   r.count("    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):") == 1,
   "rloop=reverse: the first loop as it was, the normalising loop from the row's last block back")
rv = N.apply(vn, "rloop=reverse")
ok(rv.count("for kopt_r0_offset in") == 1 and rv.count("for r0_offset in") == 2,
   "rloop=reverse: a loop that carries a sum (the deviations') keeps its order; only the last walks back")
kept = N.apply(fixture("layernorm.py"), "rstages=2+rloop=reverse")
ok("    for kopt_r0_offset in tl.range(0, r0_numel, R0_BLOCK, num_stages=2):" in kept,
   "rloop with rstages: the loop keeps its keywords")

# refusals, each with its reason
for fname, edit, why in (
        ("row_sum.py", "rloop=reverse", "one row loop"),
        ("cross_entropy.py", "onepass=welford", "one row loop"),
        ("layernorm.py", "onepass=welford", "no later row loop that only sums"),
        ("per_gelu_layernorm.py", "rloop=reverse", "not a looped reduction"),
        ("poi_conv_relu.py", "onepass=sumsq", "not a looped reduction"),
        ("tem_mm.py", "rloop=reverse", "not a looped reduction")):
    try:
        N.apply(fixture(fname), edit)
        ok(False, f"{fname}: {edit} refused")
    except N.KnobError as e:
        ok(why in str(e), f"{fname}: {edit} refused ({e})", e)
dyn = vn.replace("    r0_numel = 8192\n", "")
try:
    T.apply(dyn, "onepass", "welford")
    ok(False, "onepass refused on a row of dynamic length")
except T.TransformError as e:
    ok("not static" in str(e), "onepass refused on a row of dynamic length", e)
busy = vn.replace("        _tmp10 = tl.where(r0_mask, tmp11, _tmp10)\n",
                  "        _tmp10 = tl.where(r0_mask, tmp11, _tmp10)\n        tl.store(out_ptr2 + (r0_1 + 8192*x0), tmp7, r0_mask)\n")
try:
    T.apply(busy, "onepass", "sumsq")
    ok(False, "onepass refused where the second loop also stores")
except T.TransformError as e:
    ok("does more than the centred sum" in str(e), "onepass refused where the second loop also stores", e)
uncentred = vn.replace("        tmp7 = tmp4 - tmp6\n", "        tmp7 = tmp4 - tmp5\n")
try:
    T.apply(uncentred, "onepass", "welford")
    ok(False, "onepass refused where the square is not centred on the mean")
except T.TransformError:
    ok(True, "onepass refused where the square is not centred on the mean")
carried = fixture("layernorm.py").replace("        tmp19 = tmp17 + tmp18\n", "        tmp19 = tmp17 + tmp18 + tmp9\n")
ok("rloop" not in T.applies(carried.replace("        tmp9 = tmp8 - tmp2\n", "        tmp9 = tmp8 - tmp19\n"))[0],
   "rloop refused on a loop that reads a value before it assigns it (carried from the block before)")

# the knobs: names, kinds, the space, moves, combinations
ok(N.name(N.parse("rloop=reverse+evict0=first+onepass=sumsq+grid=132")) ==
   "evict0=first+onepass=sumsq+rloop=reverse+grid=132", "an edit's name: transforms after the loop knobs, before persist")
ok(N.kinds("onepass=welford+rloop=reverse") == ["onepass", "rloop"], "the transforms' kinds")
for bad in ("onepass=twice", "rloop=forward", "onepass=welford+onepass=sumsq"):
    try:
        N.parse(bad)
        ok(False, f"parse rejects {bad}")
    except N.KnobError:
        ok(True, f"parse rejects {bad}")
sp = N.space(vn)
ok("onepass" not in sp and "rloop" not in sp, "no transform in the space unless the analyst asks for it")
sp = N.space(vn, transforms={"onepass", "rloop"})
ok(sp.get("onepass") == ["off", "welford", "sumsq"] and sp.get("rloop") == ["off", "reverse"],
   "asked for, each transform that applies is in the space, off first", sp)
ok("onepass" not in N.space(fixture("layernorm.py"), transforms={"onepass"}),
   "a transform asked for that does not apply is not in the space")
nb = N.neighbours("", sp)
ok("onepass=welford" in nb and "onepass=sumsq" in nb and "rloop=reverse" in nb, "the screen's moves turn each on", nb)
ok(N.edit_of({"onepass": "off", "rloop": "reverse"}, sp) == "rloop=reverse", "off is no part of an edit's name")
ok(not N.allowed({"rloop": "reverse", "persist": "on"}) and N.allowed({"rloop": "reverse"}),
   "rloop never goes with persist")
sp2 = N.space(fixture("layernorm.py"), transforms={"rloop"})
ok("persist=on+rloop=reverse" not in N.neighbours("persist=on", sp2) and
   all("rloop" not in e for e in N.neighbours("persist=on", sp2)), "... and the moves never pair them")
try:
    N.apply(fixture("layernorm.py"), "rloop=reverse+persist=on")
    ok(False, "apply refuses rloop with persist")
except N.KnobError:
    ok(True, "apply refuses rloop with persist")
both = N.apply(vn, "onepass=welford+persist=on")
ok(G.check(both, vn)[0] and "    if R0_BLOCK >= 8192:" in both and both.count("tl.load(in_ptr0") == 2 + 1,
   "onepass with persist: the two loops left made persistent, the second load a copy; gate 1 passes",
   G.check(both, vn)[1])
g = N.apply(vn, "onepass=sumsq+rloop=reverse+grid=264")
ok(G.check(g, vn)[0] and "    if kopt_pid < 264:" in g and "for kopt_r0_offset in" in g,
   "onepass, rloop and grid together: gate 1 passes", G.check(g, vn)[1])
ok(N.kinds("onepass=welford") == ["onepass"] and T.VERSION >= 1, "the transforms' version is set")
done()
