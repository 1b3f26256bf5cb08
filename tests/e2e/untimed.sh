#!/bin/sh
# tests/e2e/untimed.sh: a stitch whose compiled code alone fails in the
# stitched model (as a worker whose GPU memory ran out did: no perf, no
# times). With the simulated worker (a TEST DOUBLE), "# sim: untimed
# VARIANT" makes that variant's stitch without winners fail its
# correctness run with an error. Another variant than the first leaves the
# race and the rest stand; the first variant, which every time is measured
# by, fails the stitch: no report row of 0 us, no figure, and the next
# build runs the stitch again. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" untimed
mkdir models
mk() { printf '# model %s\n%b# sim: kernels 2\nimport torch\n' "$1" "$2" > "models/$1.py"; }
mk second '# sim: untimed autotune\n'
mk first '# sim: untimed default\n'
mk zeroed '# sim: untimed-zero default\n'
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 2  hot = 0.99  seed = 1  backend = builtin  auto_variants = false }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model second {
  source = "models/second.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model first {
  source = "models/first.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model zeroed { source = "models/zeroed.py" }
target all = [second, first, zeroed]
default all
SPEC

rc=0
"$KOPTMAKE" -k > out 2> err || rc=$?
check "the build fails (exit $rc): one stitch failed" "[ $rc -ne 0 ]"
check "... the first variant's: it says which and why" \
	"grep -q \"stitch first.*variant 'default' was not timed: its compiled code alone failed in the stitched model (.*OutOfMemoryError\" err"
j=kopt-out/all/report.json
check "... and a reply of 0 us (as older workers answered) is no time either" \
	"grep -q \"stitch zeroed.*variant 'default' was not timed\" err"
check "the report is written, with the other model" "[ -f $j ] && grep -q '\"second\"' $j"
py() { python3 -c "import json,sys; r={m['model']:m for m in json.load(open('$j'))['models']}; $1"; }
check "the second model: its first variant's times, and a speedup" \
	"py \"m=r['second']; sys.exit(not (m.get('baseline_ns') or 0) > 0 or m.get('speedup') is None)\""
check "... its autotune variant out of the race, with the reason and no times" \
	"grep -q '^| autotune | not run | - | - | 1 | not timed: its compiled code alone failed in the stitched model' kopt-out/second/report.md"
check "no report row of 0 us" "! grep -Eq '^[|] (first|second) [|].*[|] 0[.]000 [|]' kopt-out/all/report.md kopt-out/second/report.md"
check "the failed model has no figure in the report" \
	"py \"m=r.get('first'); sys.exit(m is not None and (m.get('speedup') or 0) > 0)\""
: > sim.log
rc=0
"$KOPTMAKE" -k > out2 2> err2 || rc=$?
check "the next build asks the worker for that stitch again (its failure was not remembered), and for nothing else" \
	"[ \"\$(sort sim.log | tr '\\n' ,)\" = 'stitch first default,stitch zeroed default,' ] && grep -q 'stitch first failed' err2"
echo "1..$n"
