#!/bin/sh
# tests/static/recorded.sh: gate 1 (the static gate) on every Triton kernel
# Inductor wrote in the recordings (tests/fixtures/kernels/*.py, the kernels
# of tests/fixtures/gpu/output-cross_entropy-autotune.py and of the captures
# tests/fixtures/gpu/capture-*.json), each checked against itself: it
# passes, and proves every load and store in bounds (no memcheck). The
# honest side of the corpus: a rule that rejects or doubts Inductor's own
# code breaks here. Prints TAP. Needs python3 (standard library only).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
PYTHON=${PYTHON:-python3}
if ! command -v "$PYTHON" >/dev/null 2>&1; then
	echo "1..0 # SKIP no $PYTHON"
	exit 0
fi
exec "$PYTHON" - "$top_srcdir" <<'PY'
import glob, json, os, re, sys
top = sys.argv[1]
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import static_gate

fx = os.path.join(top, "tests", "fixtures")
cases = []  # (name, source)
for path in sorted(glob.glob(os.path.join(fx, "kernels", "*.py"))):
    cases.append((os.path.relpath(path, top), open(path, encoding="utf-8", newline="").read()))
# the output code's async_compile.triton('NAME', '''SOURCE''', device_str='cuda') (kopt.kernels.DECL)
decl = re.compile(r"^\w+ = async_compile\.triton\('(?P<name>\w+)', '''(?P<src>.*?)''', device_str='\w+'\)",
                  re.S | re.M)
out = os.path.join(fx, "gpu", "output-cross_entropy-autotune.py")
for m in decl.finditer(open(out, encoding="utf-8").read()):
    cases.append((f"output-cross_entropy-autotune.py: {m['name']}", m["src"]))
for path in sorted(glob.glob(os.path.join(fx, "gpu", "capture-*.json"))):
    cap = json.load(open(path))
    cap = cap.get("reply", {}).get("result", cap)
    for k in cap.get("kernels", []):
        if k.get("kind") == "triton" and k.get("source") and "import triton" in k["source"]:
            cases.append((f"{os.path.basename(path)}: {k['name']}", k["source"]))
n = bad = 0
for name, src in cases:
    n += 1
    r = static_gate.report(src, src)
    if r["ok"] and not r["memcheck"]:
        print(f"ok {n} - {name}: {r['reason']}")
    else:
        bad += 1
        why = r["reason"] if not r["ok"] else "needs a memcheck: " + static_gate.memcheck_text(r["memcheck"])
        print(f"not ok {n} - {name}: {why}")
ok_count = n >= 19
n += 1
print(f"{'' if ok_count else 'not '}ok {n} - the recordings hold {n - 1} kernels (at least 19)")
bad += not ok_count
print(f"1..{n}")
sys.exit(1 if bad else 0)
PY
