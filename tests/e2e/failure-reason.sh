#!/bin/sh
# tests/e2e/failure-reason.sh: a verify that fails again under the same key
# with another reason, with the simulated worker (a TEST DOUBLE; "# sim:
# error verify" fails every verify, KOPT_SIM_ERROR_TEXT says how): a failed
# step runs again at the next build, and the model's report, which quotes
# each failed candidate's reason, is written again with the new reason (its
# stitch is keyed on the reasons of the verifies that failed), while a
# build with the same reason again rewrites nothing. Prints TAP.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" failure-reason
mkdir -p p/models
printf '# model m\n# sim: kernels 2\n# sim: error verify\nimport torch\n' > p/models/m.py
cat > p/s.kopt <<'SPEC'
device sim { gpus = 1  timeout = 30s }
agents default { budget = 1  hot = 0.05  seed = 1  screen = 0  auto_variants = false }
gates strict { seeds = 2  gamma = 1.03  repeats = 5 }
defaults { device = sim  agents = default  gates = strict }
model m { source = "models/m.py" }
target all = [m]
SPEC
# build N TEXT: a build whose verifies fail with TEXT, its output in outN and errN
build() { rc=0; (cd p && KOPT_SIM_ERROR_TEXT="$2" "$KOPTMAKE" -k > "../out$1" 2> "../err$1") || rc=$?; }
build 1 "the first reason"
check "a build whose verifies fail says the first reason in the model's report (exit $rc)" \
	"grep -q 'the first reason' p/kopt-out/m/report.md"
build 2 "the second reason"
check "the next build fails them with another reason: the report says the new one, not the old" \
	"grep -q 'the second reason' p/kopt-out/m/report.md && ! grep -q 'the first reason' p/kopt-out/m/report.md"
check "... the verifies ran again and so did the stitch" \
	"grep -q 'error: verify m/.* failed: worker error: the second reason' err2 && grep -q '^\[.*stitch m\$' out2"
build 3 "the second reason"
check "with the same reason again, the verifies run again but the stitch does not" \
	"grep -q 'error: verify m/.* failed: worker error: the second reason' err3 && ! grep -q '^\[.*stitch m' out3 && grep -q 'the second reason' p/kopt-out/m/report.md"
echo "1..$n"
