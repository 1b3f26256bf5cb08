#!/bin/sh
# tests/static/cheats.sh: gate 1 (the static gate) on the reward-hacking
# suite (tests/gpu/cheats.py), built from the capture recorded on the H200
# (tests/fixtures/gpu/capture-small_softmax.json): each cheat the suite says
# the static gate rejects is rejected, and every other candidate, the honest
# ones first, gets through gate 1 to the gate it is meant for. Prints TAP.
# Needs python3 (standard library only).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
PYTHON=${PYTHON:-python3}
if ! command -v "$PYTHON" >/dev/null 2>&1; then
	echo "1..0 # SKIP no $PYTHON"
	exit 0
fi
exec "$PYTHON" - "$top_srcdir" <<'PY'
import json, os, sys
top = sys.argv[1]
sys.path[:0] = [os.path.join(top, "runtime", "python"), os.path.join(top, "tests", "gpu")]
from kopt import static_gate
import cheats
cap = json.load(open(os.path.join(top, "tests", "fixtures", "gpu", "capture-small_softmax.json")))
cap = cap.get("reply", {}).get("result", cap)
orig = cheats.kernel(cap)["source"]
n = bad = 0
for c in cheats.suite(cap):
    n += 1
    src = c["candidate"]["source"]
    if src is None:
        ok, why = True, "config only"
    else:
        r = static_gate.report(src, orig)
        ok, why = r["ok"], r["reason"] + (f"; memcheck: {static_gate.memcheck_text(r['memcheck'])}" if r["memcheck"] else "")
    want_fail = c["expect"] == "static"
    if ok != want_fail:
        print(f"ok {n} - {c['id']} ({c['expect']}): gate 1 {'rejects' if not ok else 'passes'}: {why}")
    else:
        bad += 1
        print(f"not ok {n} - {c['id']} ({c['expect']}): gate 1 {'rejects' if not ok else 'passes'}: {why}")
print(f"1..{n}")
sys.exit(1 if bad else 0)
PY
