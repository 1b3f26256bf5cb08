"""tests/runtime/test_static_gate_main.py: gate 1's command
(python3 -m kopt.static_gate CANDIDATE ORIGINAL, static_gate.main), run in
this process: its exit status and its one line for each outcome (a pass,
a pass with accesses left to the memcheck, a failure, a candidate that is
not UTF-8 with the byte and its line, files it cannot read, the wrong
number of arguments), the reason's words for one kernel and for two, and
the memcheck list cut to three with a count of the rest. Prints TAP.
Needs python3 alone (no torch, no triton)."""
import contextlib
import io
import os
import sys
import tempfile

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

from kopt import static_gate as S  # noqa: E402

static = os.path.join(top, "tests", "static")


def main(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = S.main(["static_gate", *args])
    return rc, out.getvalue(), err.getvalue()


orig = os.path.join(static, "orig", "per_softmax4.py")
rc, out, err = main(orig, orig)
ok(rc == 0 and out == "pass: kernel 'triton_per_fused__softmax_exp_prepare_softmax_online_sub_4' keeps name, signature and decorators\n" and err == "",
   "an original against itself: exit 0, one line: pass, its kernel named, 'keeps' for one", (rc, out, err))

bad = os.path.join(static, "bad", "class_def.py")
with open(bad) as f:
    want = f.readline()[len("# expect: "):].strip()
borig = os.path.join(static, "orig", [ln for ln in open(bad) if ln.startswith("# original: ")][0][12:].strip())
rc, out, err = main(bad, borig)
ok(rc == 1 and out.startswith("fail: ") and want in out and out.count("\n") == 1 and err == "",
   "a rejected candidate: exit 1, one line: fail and the reason", (rc, out))

mem = sorted(os.listdir(os.path.join(static, "memcheck")))[0]
mpath = os.path.join(static, "memcheck", mem)
morig = os.path.join(static, "orig", [ln for ln in open(mpath) if ln.startswith("# original: ")][0][12:].strip())
rc, out, err = main(mpath, morig)
r = S.report(open(mpath).read(), open(morig).read())
ok(rc == 0 and out == "pass: %s; memcheck: %s\n" % (r["reason"], S.memcheck_text(r["memcheck"])) and r["memcheck"],
   "a pass with accesses for the memcheck: exit 0, the list after the reason", (rc, out))

with tempfile.TemporaryDirectory() as d:
    cand = os.path.join(d, "cand.py")
    with open(cand, "wb") as f:
        f.write(b"import triton\n\n# caf\xe9\n")
    rc, out, err = main(cand, orig)
    ok(rc == 1 and out == "fail: candidate is not UTF-8 (byte 0xe9 on line 3)\n",
       "a candidate that is not UTF-8: exit 1, the byte and its line", (rc, out))
    with open(cand, "wb") as f:
        f.write(b"\xff")
    rc, out, err = main(cand, orig)
    ok(rc == 1 and out == "fail: candidate is not UTF-8 (byte 0xff on line 1)\n", "... on its first line: line 1",
       (rc, out))
    rc, out, err = main(os.path.join(d, "none.py"), orig)
    ok(rc == 2 and out == "" and err.startswith("static_gate: ") and "none.py" in err,
       "a candidate that cannot be read: exit 2, said on stderr", (rc, out, err))
    latin = os.path.join(d, "latin.py")
    with open(latin, "wb") as f:
        f.write(b"x = '\xe9'\n")
    rc, out, err = main(orig, latin)
    ok(rc == 2 and out == "" and err.startswith("static_gate: "), "an original that is not UTF-8: exit 2", (rc, out, err))

for args in ([], [orig], [orig, orig, orig]):
    rc, out, err = main(*args)
    ok(rc == 2 and out == "" and err == "usage: python3 -m kopt.static_gate CANDIDATE ORIGINAL | --each\n",
       "%d argument(s): exit 2 and the usage" % len(args), (rc, out, err))


def each(text):
    """main --each with TEXT on stdin: (status, stdout, stderr)"""
    sys.stdin = io.StringIO(text)
    try:
        return main("--each")
    finally:
        sys.stdin = sys.__stdin__


# --each: a line per pair, the status and the two-file command's line
with tempfile.TemporaryDirectory() as d:
    notutf = os.path.join(d, "cand.py")
    with open(notutf, "wb") as f:
        f.write(b"\n\xff\n")
    pairs = [(orig, orig), (bad, borig), (mpath, morig), (notutf, orig), (os.path.join(d, "none.py"), orig)]
    want = []
    for c, o in pairs:
        rc, out, err = main(c, o)
        want.append("%d\t%s" % (rc, (out + err).rstrip("\n")))
    rc, out, err = each("".join("%s\t%s\n" % p for p in pairs))
    ok(rc == 0 and err == "" and out.splitlines() == want and [w[0] for w in want] == ["0", "1", "0", "1", "2"],
       "--each: for each pair its status and the line the two-file command gives, in the pairs' order", (out, want))
    rc, out, err = each("%s\n%s\t%s\t%s\n%s\t%s" % (orig, orig, orig, orig, bad, borig))
    lines = out.splitlines()
    ok(rc == 0 and len(lines) == 3 and lines[0].startswith("2\tstatic_gate: want CANDIDATE<TAB>ORIGINAL")
       and lines[1].startswith("2\t") and lines[2] == want[1],
       "--each: a line without one tab is status 2 and the next pairs still read, the last without its newline", lines)
    real = S.report
    S.report = lambda c, o: 1 / 0
    try:
        rc, out, err = each("%s\t%s\n%s\t%s\n" % (orig, orig, notutf, orig))
    finally:
        S.report = real
    ok(rc == 0 and out.splitlines() == ["3\tstatic_gate: ZeroDivisionError: division by zero", want[3]],
       "--each: a gate that raises is status 3 with the exception, never read as a verdict, and the next pair goes on",
       out)
    rc, out, err = each("")
    ok(rc == 0 and out == "" and err == "", "--each with nothing on stdin: nothing, status 0", (rc, out, err))

ok(S.memcheck_text(["a", "b", "c"]) == "a; b; c" and S.memcheck_text(["a", "b", "c", "d", "e"]) == "a; b; c; and 2 more"
   and S.memcheck_text(["a", "b"], limit=1) == "a; and 1 more" and S.memcheck_text([]) == "",
   "the memcheck list: three at most, then how many more")

two = "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k1(x):\n    pass\n\n\n@triton.jit\ndef k2(x):\n    pass\n"
r = S.report(two, two)
ok(r["ok"] and r["reason"] == "kernels 'k1', 'k2' keep name, signature and decorators",
   "two kernels: 'kernels', both named, 'keep'", r)
done()
