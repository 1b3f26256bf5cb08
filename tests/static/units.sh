#!/bin/sh
# tests/static/units.sh: gate 1 (the static gate) on what the file corpus
# cannot hold or show: a lone surrogate (a JSON string can carry one, a
# UTF-8 file cannot), a source past the size limit, Python 3.12's type
# aliases and type parameters (rejected; skipped on an older Python, which
# cannot parse them), the lines kopt.kernels.load_jit registers for
# Triton against compile()'s numbering, a Helion edit whose raw text hides
# what its re-printed text does not show, and the gate's own time on a
# kernel built to make a name-following analysis exponential. Prints TAP.
# Needs python3 (standard library only).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
PYTHON=${PYTHON:-python3}
if ! command -v "$PYTHON" >/dev/null 2>&1; then
	echo "1..0 # SKIP no $PYTHON"
	exit 0
fi
exec "$PYTHON" - "$top_srcdir" <<'PY'
import json, os, sys, time
top = sys.argv[1]
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import static_gate as G, static_text as T

n = bad = 0


def ok(cond, what, detail=None):
    global n, bad
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {what}")
    if not cond:
        bad += 1
        if detail is not None:
            print(f"# {detail}")


def skip(what, why):
    global n
    n += 1
    print(f"ok {n} - {what} # SKIP {why}")


vadd = open(os.path.join(top, "tests", "static", "orig", "standalone_vadd.py"), encoding="utf-8").read()
honest = vadd[vadd.index("import triton"):vadd.index("\n\ndef launch")] + "\n"
r = G.report(honest, vadd)
ok(r["ok"] and not r["memcheck"], "the standalone kernel alone passes against its file", r)

r = G.report(honest + "# \udc80\n", vadd)
ok(not r["ok"] and "lone surrogate" in r["reason"], "a lone surrogate (from a JSON escape) is rejected", r)

big = honest + ("# " + "x" * 1000 + "\n") * 1100
r = G.report(big, vadd)
ok(not r["ok"] and "characters (at most" in r["reason"], "a source past the size limit is rejected", r["reason"])

alias = honest.replace("    pid = tl.program_id(0)\n", "    type tl = int\n    pid = tl.program_id(0)\n")
generic = honest.replace("def vadd_kernel(", "def helper[tl](v):\n    return v\n\n\n@triton.jit\ndef vadd_kernel(")
if sys.version_info >= (3, 12):
    r = G.report(alias, vadd)
    ok(not r["ok"] and "rebinding 'tl'" in r["reason"], "a type alias named tl inside the kernel is rejected", r)
    r = G.report(generic, vadd)
    ok(not r["ok"] and ("type parameters" in r["reason"] or "rebinding 'tl'" in r["reason"]),
       "a type parameter named tl is rejected", r)
else:
    skip("a type alias named tl inside the kernel is rejected", f"Python {sys.version_info[:2]} has no type aliases")
    skip("a type parameter named tl is rejected", f"Python {sys.version_info[:2]} has no type parameters")

# the lines linecache holds for a candidate compiled from a string (kopt.kernels.load_jit)
text = "a = 1  # \u2028 b\nc = 2\x0c\nd = 3\n"
code = compile(text, "<t>", "exec")
lines = T.source_lines(text)
ok(len(lines) == 3 and lines[2].startswith("d = 3"),
   "source_lines numbers lines as compile() does (three lines)", lines)
ok(len(text.splitlines()) != len(lines),
   "str.splitlines, which load_jit used, numbers them differently", text.splitlines())

# Helion: the edit's own text runs when it defines every function
gen = json.load(open(os.path.join(top, "tests", "fixtures", "helion", "softmax-capture.json")))["kernel"]["source"]
crlf = gen.replace("\n", "\r\n")
r = G.report_helion(crlf, gen)
ok(not r["ok"] and "carriage return" in r["reason"],
   "a Helion edit with carriage returns is rejected though its re-printed text has none", r)
cut = gen.replace("@triton.jit\n", "@triton.jit(debug='''\ndef x():\n    pass\n    s = \"\"\"''')\n", 1)
r = G.report_helion(cut, gen)
ok(not r["ok"] and ("Triton would" in r["reason"] or "debug" in r["reason"]),
   "a Helion edit that Triton would read as another function is rejected", r)

# a chain of names that doubles what a name-following analysis expands
chain = "    t0 = offs\n" + "".join(f"    t{i + 1} = t{i} + t{i}\n" for i in range(60))
slow = honest.replace("    tl.store(out_ptr + offs,", chain + "    tl.store(out_ptr + t60,")
start = time.monotonic()
r = G.report(slow, vadd)
took = time.monotonic() - start
# (past the analysis's depth a pointer could hide in it: the store's buffer
# cannot be told, so it is rejected)
ok(took < 10 and not r["ok"] and "cannot tell which buffer it writes" in r["reason"],
   f"a doubling chain of 60 names takes {took:.2f} s, and the store whose index it is cannot be followed", r)
masks = "    m0 = offs < n\n" + "".join(f"    m{i + 1} = m{i} & m{i}\n" for i in range(40))
slow = honest.replace("    tl.store(out_ptr + offs, x + y, mask=mask)", masks + "    tl.store(out_ptr + offs, x + y, mask=m40)")
start = time.monotonic()
r = G.report(slow, vadd)
took = time.monotonic() - start
ok(took < 10 and r["ok"] and not r["memcheck"], f"a doubling chain of 40 masks takes {took:.2f} s and is proven", r)
# an early return on a value known only at run time: what follows it runs
# only where it did not, so the original's accesses there prove nothing
# for an access placed before it (its unmasked store of row n_rows and on)
early = """import triton
import triton.language as tl


@triton.jit
def rowmax_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
%s    if row >= n_rows:
        return
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
%s"""
store = "    tl.store(out_ptr + row, tl.max(x, 0))\n"
orig = early % ("", store)
moved = early % ("    x = tl.load(x_ptr + row * n_cols + tl.arange(0, BLOCK), mask=tl.arange(0, BLOCK) < n_cols, "
                 "other=-float('inf'))\n" + store, "")
r = G.report(moved, orig)
ok(r["ok"] and any("store" in m for m in r["memcheck"]),
   "an access moved before a run-time early return is not proven by the original's after it", r)
r = G.report(orig.replace("if row >= n_rows:", "if 4 * 0 == 1:"), orig.replace("if row >= n_rows:", "if 4 * 0 == 1:"))
ok(r["ok"] and not r["memcheck"], "an early return on numbers alone (Inductor's `if M * N == 0`) proves as before", r)
# a loop of two arguments' range proves its accesses at its first value
two = """import triton
import triton.language as tl


@triton.jit
def halves_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    for k in range(0, 2):
        x = tl.load(x_ptr + k * n + offs, mask=offs < n)
        tl.store(out_ptr + k * n + offs, x, mask=offs < n)
"""
r = G.report(two, two)
ok(r["ok"] and not r["memcheck"], "a loop over range(0, 2): its accesses proven against themselves", r)
print(f"1..{n}")
sys.exit(1 if bad else 0)
PY
