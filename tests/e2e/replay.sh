#!/bin/sh
# tests/e2e/replay.sh: koptmake over replies recorded on the GPU machine
# (tests/replay-worker.py, a test double): the rules parse real capture,
# profile and verify results; the profile report lists the real kernel; the
# gates decide the recorded numbers. No screen reply is recorded: screening
# is off. Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
KOPT_WORKER=$top_srcdir/tests/replay-worker.py
export KOPT_WORKER top_srcdir
if ! bad=$(python3 "$top_srcdir/tests/gpu/manifest.py" check "$top_srcdir/tests/fixtures/gpu"); then
	echo "Bail out! the GPU fixtures do not match their manifest: $bad"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-replay-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > replay.kopt <<SPEC
device h200 { gpus = 1  timeout = 60s }
agents default { budget = 3  hot = 0.05  seed = 1  screen = 0 }
gates strict { seeds = 5  repeats = 15  gamma = 1.03 }
defaults { device = h200  agents = default  gates = strict  allow_roots = ["$top_srcdir/tests/gpu/models"] }
model small_softmax { source = "$top_srcdir/tests/gpu/models/small_softmax.py" }
target all = [small_softmax]
SPEC
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' err out 2>/dev/null | head -20; fi; }
set +e
"$KOPTMAKE" > out 2> err
status=$?
set -e
K=triton_red_fused__softmax_add_exp_mul_prepare_softmax_online_sub_0
# the model's entry in report.json: name, verdict, speedup, variant
entry=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["models"]; print(len(m), *[m[0][k] for k in ("model", "verdict", "speedup", "variant")])' kopt-out/all/report.json 2>/dev/null || true)
check "the build over recorded replies succeeds (exit $status): report.json has the one model ($entry)" \
	"[ $status -eq 0 ] && [ '$entry' = '1 small_softmax baseline 1.0 default' ]"
check "the profile report lists the real kernel" "grep -q $K kopt-out/small_softmax/profile.md"
check "the profile report has its share and bandwidth" "grep $K kopt-out/small_softmax/profile.md | grep -q '100'"
check "three candidates verified" "[ \$(grep -c '^\[.*verify ' out) -eq 3 ]"
"$KOPTMAKE" -t why verify small_softmax/default/$K/c0 > why 2>&1 || true
check "-t why: the recorded numbers fail the perf gate" "grep -q 'perf: kernel speedup' why"
check "the target has its plots" "[ -s kopt-out/all/speedup.svg ] && grep -q '<circle' kopt-out/all/roofline.svg"
check "substitutions.json in the format kopt.backend reads" "grep -q '\"kernels\"' kopt-out/small_softmax/substitutions.json && grep -q '\"variant\"' kopt-out/small_softmax/substitutions.json"
check "the report has a GPU-minutes column" "grep -q "GPU-minutes" kopt-out/all/report.md && grep -q gpu_minutes kopt-out/all/report.json"
# the recorded verifies all fail the perf gate: the model keeps its compiled
# code, at the recorded stitch's baseline time
check "no winner: the model report keeps the baseline, at the recorded time" \
	"grep -qx 'Baseline kept: no verified winner survived stitching (151\\.584 us per call)\\.' kopt-out/small_softmax/report.md && grep -qx 'Verdicts of all candidates: perf 3;' kopt-out/small_softmax/report.md"
check "no winner: the target's report says baseline, 1.000x" \
	"grep -q '^| small_softmax | default | 151\\.584 | - | 151\\.584 | 1\\.000x | - | baseline | perf 3 | ' kopt-out/all/report.md"
"$KOPTMAKE" -n > out 2> err
check "null build over the recordings" "[ \"\$(cat out)\" = '0 steps would run' ]"
echo "1..$n"
