#!/bin/sh
# tests/static/cheats.sh: gate 1 (the static gate) on the reward-hacking
# suite (tests/gpu/cheats.py), built from the capture recorded on the H200
# (tests/fixtures/gpu/capture-small_softmax.json): each cheat the suite says
# the static gate rejects is rejected, and every other candidate, the honest
# ones first, gets through gate 1 to the gate it is meant for; and the
# honest candidates' config is taken from a screen's reply as cheats.py
# says. Prints TAP.
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
    if c.get("memcheck"):
        # rejected by the memcheck on the GPU: here gate 1 lists it for one
        if ok and r["memcheck"]:
            print(f"ok {n} - {c['id']} ({c['expect']}): gate 1 passes it to the memcheck: {why}")
        else:
            bad += 1
            print(f"not ok {n} - {c['id']} ({c['expect']}): gate 1 should list it for the memcheck: {why}")
        continue
    if ok != want_fail:
        print(f"ok {n} - {c['id']} ({c['expect']}): gate 1 {'rejects' if not ok else 'passes'}: {why}")
    else:
        bad += 1
        print(f"not ok {n} - {c['id']} ({c['expect']}): gate 1 {'rejects' if not ok else 'passes'}: {why}")
# the honest candidates' config and verdict from a screen on the machine
# (cheats.honest_config): its fastest launch config (an edit's row left
# out), to pass where it is clearly faster, else to fail the perf gate
def screened(*rows):
    return {"best": [{"config": {"R0_BLOCK": r}, "speedup": sp, **({"edit": e} if e else {})} for r, sp, e in rows]}
checks = [
    ("a config 1.20x as fast: the honest candidates take it and must pass",
     cheats.honest_config(screened((1024, 1.20, ""), (512, 1.05, ""))), ({"R0_BLOCK": 1024}, "pass")),
    ("the fastest 1.05x: taken too, and either verdict of the perf gate is right (near gamma)",
     cheats.honest_config(screened((512, 1.05, ""))), ({"R0_BLOCK": 512}, "pass|perf")),
    ("the fastest 0.98x: no faster than Inductor's, so the perf gate must reject it",
     cheats.honest_config(screened((512, 0.98, ""))), ({"R0_BLOCK": 512}, "perf")),
    ("the fastest exactly 1.00x: rejected too",
     cheats.honest_config(screened((512, 1.0, ""))), ({"R0_BLOCK": 512}, "perf")),
    ("the fastest exactly CLEAR: must pass",
     cheats.honest_config(screened((512, cheats.CLEAR, ""))), ({"R0_BLOCK": 512}, "pass")),
    ("a faster row with a source edit is not a launch config alone: the next is taken",
     cheats.honest_config(screened((256, 1.30, "evict0=last"), (2048, 1.12, ""))), ({"R0_BLOCK": 2048}, "pass")),
    ("a screen that measured nothing correct: the H200's config, to be rejected",
     cheats.honest_config(screened()), (cheats.H200_FASTER, "perf")),
]
for what, got, want in checks:
    n += 1
    good = got[:2] == want
    bad += not good
    print(f"{'' if good else 'not '}ok {n} - honest_config: {what}" + ("" if good else f" (got {got})"))
print(f"1..{n}")
sys.exit(1 if bad else 0)
PY
