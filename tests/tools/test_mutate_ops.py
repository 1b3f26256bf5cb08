"""tests/tools/test_mutate_ops.py: tools/mutate's own rules, on a small
C file and a small Python file of its own in a scratch folder: the
mutants of a file are the same at every enumeration (their IDs are what
the equivalence file names); an argument holds while its line is as it
was, is stale once the line changes, is stale without a line hash, is
stale when no mutant has its ID; a run over some targets only leaves
the arguments about other files alone; and a child's _exit after its
coverage flush is mapped to the flush's tests. Prints TAP."""
import os
import shutil
import sys
import tempfile

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "tools"))
sys.path.insert(0, os.path.join(top, "tests", "runtime"))
from tap import ok, done  # noqa: E402
import mutate_ops as M  # noqa: E402

C = """/* a.c: a file to mutate */
int clamp(int x)
{
\tif (x < 0)
\t\treturn 0;
\treturn x > 9 ? 9 : x;
}
"""
PY = """def pick(a, b):
    if a <= b:
        return a
    return b
"""

root = tempfile.mkdtemp(prefix="kopt-mutate-")
with open(os.path.join(root, "a.c"), "w") as f:
    f.write(C)
with open(os.path.join(root, "b.py"), "w") as f:
    f.write(PY)

both = [("a.c", None), ("b.py", None)]
first = M.enumerate_mutants(root, both)
again = M.enumerate_mutants(root, both)
ok(first and [m.id for m in first] == [m.id for m in again],
   "mutants: the same IDs at every enumeration (%d mutants)" % len(first))
ok({m.file for m in first} == {"a.c", "b.py"} and {m.lang for m in first} == {"c", "py"},
   "mutants: of the C file and of the Python file")
ok(len({m.id for m in first}) == len(first), "mutants: each ID is one mutant's")
ok(all(m.apply(C if m.file == "a.c" else PY) != (C if m.file == "a.c" else PY) for m in first),
   "mutants: each changes its file")

mc = next(m for m in first if m.file == "a.c" and m.line == 4)
mp = next(m for m in first if m.file == "b.py")
eq = os.path.join(root, "equivalent.txt")


def arguments(lines, targets=both):
    with open(eq, "w") as f:
        f.write("# comment\n\n" + "".join(ln + "\n" for ln in lines))
    return M.read_equivalent(eq, M.enumerate_mutants(root, targets))


good, stale = arguments(["%s %s a.c: the reason" % (mc.id, M.line_hash(mc.old))])
ok(good == {mc.id: "a.c: the reason"} and not stale, "equivalence: an argument on an unchanged line holds, with its reason")
good, stale = arguments(["%s a.c: no hash" % mc.id])
ok(not good and len(stale) == 1 and "no line hash" in stale[0][1], "equivalence: one without a line hash is stale")
good, stale = arguments(["%s %s a.c: wrong hash" % (mc.id, "0" * 8 if M.line_hash(mc.old) != "0" * 8 else "1" * 8)])
ok(not good and len(stale) == 1 and "changed since" in stale[0][1], "equivalence: one whose line hash differs is stale")
good, stale = arguments(["deadbeef00 12345678 a.c: gone"])
ok(not good and len(stale) == 1 and "no such mutant" in stale[0][1], "equivalence: one whose ID no mutant has is stale")

# the line changes: the argument is stale (its mutant's ID goes with the line)
line = "%s %s a.c: the reason" % (mc.id, M.line_hash(mc.old))
with open(os.path.join(root, "a.c"), "w") as f:
    f.write(C.replace("if (x < 0)", "if (x < -1)"))
good, stale = arguments([line])
ok(not good and len(stale) == 1, "equivalence: once its line changes, the argument is stale (%s)" % (stale[0][1] if stale else ""))
with open(os.path.join(root, "a.c"), "w") as f:
    f.write(C)

# a run over b.py alone: the argument about a.c is neither used nor stale;
# one about b.py still is checked
pline = "%s %s b.py: the reason" % (mp.id, M.line_hash(mp.old))
good, stale = arguments([line, pline, "deadbeef00 12345678 b.py: gone"], targets=[("b.py", None)])
ok(good == {mp.id: "b.py: the reason"} and len(stale) == 1 and stale[0][0] == "deadbeef00",
   "equivalence: a run over some files leaves the arguments about others alone, and checks its own")

# a child's _exit after it flushed its coverage counts is run by the
# flush's tests (gcov never counts the _exit itself)
import mutate_cover as MC  # noqa: E402
child = "if (pid == 0) {\n\trun();\n\tKOPT_COVER_FLUSH();\n\n\t_exit(127);\n}\n"
ok(MC.after_flush(child, 5) == 3 and MC.after_flush(child, 3) is None and MC.after_flush(child, 2) is None
   and MC.after_flush(child, 1) is None,
   "coverage: the line after a KOPT_COVER_FLUSH() (blank lines skipped) is the flush's; no other line is")
shutil.rmtree(root)

# the repository's own arguments each name their file ("PATH: why"), an
# existing one: a run over other files then leaves them alone rather than
# calling them stale
# (a release tarball has no tests/mutation: nothing to check there)
import re  # noqa: E402
args_file = os.path.join(top, "tests", "mutation", "equivalent.txt")
if os.path.exists(args_file):
    unnamed = []
    for n, ln in enumerate(open(args_file, encoding="utf-8"), 1):
        parts = ln.strip().split(None, 2)
        if not parts or parts[0].startswith("#"):
            continue
        m = re.match(r"([\w./-]+\.(?:c|h|py)): ", parts[2] if len(parts) > 2 else "")
        if not m or not os.path.exists(os.path.join(top, m.group(1))):
            unnamed.append(n)
    ok(not unnamed, "tests/mutation/equivalent.txt: every argument names its file, which exists (not: %s)"
       % (unnamed or "none"))
else:
    ok(True, "equivalent.txt: every argument names its file # SKIP no tests/mutation here (a release tarball)")
done()
