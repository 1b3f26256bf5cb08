#!/bin/sh
# tests/e2e/keep-going.sh: issue 19's reports with failures, with the
# simulated worker (a test double; "# sim: error capture" fails a model's
# capture). With -k the target's report is written anyway: the failed
# model is listed with the step that failed and why (report.md and
# report.json), the geomean is over the models with a result, and the
# build exits 1. A model's report.md from an earlier build is marked stale
# when its build fails (with -k or without), and is whole again once it
# builds. A target with no models, and one whose every model failed, say
# so and exit non-zero; no report says "nanx". A worker whose step
# failed serves the next steps. Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
KOPT_WORKER=$top_builddir/tests/sim-worker
export KOPT_WORKER
# its model files are "# sim:" lines, read by a TEST DOUBLE of the worker's Python
KOPT_PYTHON=$top_srcdir/tests/sim-python
export KOPT_PYTHON
unset KOPT_LAUNCHER KOPT_TRUST_ENV KOPT_SIM_DELAY_MS 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-keepgoing-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$3" 2>/dev/null | head -20 || true; fi; }
km() { rc=0; (cd "$d" && "$KOPTMAKE" "$@" > out 2> err) || rc=$?; }

d=$tmp/p
mkdir -p "$d/models"
for m in a b c; do printf '# model %s\nimport torch\n' "$m" > "$d/models/$m.py"; done
cat > "$d/s.kopt" <<'EOF'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 1  hot = 0.05  seed = 1 }
gates strict { seeds = 2  gamma = 1.03 }
defaults { device = sim  agents = default  gates = strict }
models m = glob("models/*.py") { }
models none = glob("nothing/*.py") { }
target all = [m]
target empty = [none]
target just_b = ["m/b"]
EOF
km all
check "a first build succeeds" "[ $rc -eq 0 ] && [ -f $d/kopt-out/m/b/report.md ]" "$d/err"
cp "$d/kopt-out/m/b/report.md" "$tmp/b-report.md"

printf '# model b, changed\n# sim: error capture\nimport torch\n' > "$d/models/b.py"
km all
check "without -k: exit 1, no report run" "[ $rc -eq 1 ] && ! grep -q '^\\[.*report all' $d/out" "$d/err"
check "without -k too, b's old report.md is marked stale, with the failed step and why" \
	"head -n 1 $d/kopt-out/m/b/report.md | grep -q '^> \\*\\*Stale.\\*\\* The last build of this model failed (capture m/b/default: worker error: simulated failure in capture)'" "$d/kopt-out/m/b/report.md"
check "... and keeps the earlier report below the mark" "tail -n +3 $d/kopt-out/m/b/report.md | cmp -s - $tmp/b-report.md"
km -k all
r=$d/kopt-out/all/report.md
check "-k: exit 1, and the target's report is written" "[ $rc -eq 1 ] && grep -q '^\\[.*report all' $d/out" "$d/err"
check "-k: report.md lists the failed model, the step and why" \
	"grep -q '^| m/b | capture m/b/default | worker error: simulated failure in capture |\$' $r" "$r"
check "-k: the geomean is over the models with a result, and no nanx" \
	"grep -q '^Geometric mean speedup: [0-9.]*x over 2 models with a result' $r && ! grep -q nan $r" "$r"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["failed"] == [{"model": "m/b", "step": "capture m/b/default", "reason": "worker error: simulated failure in capture"}], d["failed"]
assert sorted(x["model"] for x in d["models"]) == ["m/a", "m/c"]
assert d["geomean_speedup"] > 0
print("ok")' "$d/kopt-out/all/report.json" > "$tmp/py" 2>&1 || true
check "-k: report.json has the failed model apart, and the others" "grep -qx ok $tmp/py" "$tmp/py"
check "-k: the closing line counts the failure" "grep -q '^koptmake: all: 3 models: .*, 1 failed; geomean' $d/out" "$d/out"
check "the stale mark is said once, however many builds fail" "[ \$(grep -c 'Stale' $d/kopt-out/m/b/report.md) -eq 1 ]" "$d/kopt-out/m/b/report.md"

km -k just_b
check "a target whose every model failed: exit 1, no geomean, no nanx" \
	"[ $rc -eq 1 ] && grep -q '^No model has a result, so no geometric mean (1 failed' $d/kopt-out/just_b/report.md && ! grep -q nan $d/kopt-out/just_b/report.md" "$d/kopt-out/just_b/report.md"
check "... and report.json's geomean is null" "grep -q '\"geomean_speedup\": null' $d/kopt-out/just_b/report.json"

printf '# model b\nimport torch\n' > "$d/models/b.py"
km all
check "b builds again: exit 0, its report.md whole (the earlier build's bytes)" "[ $rc -eq 0 ] && cmp -s $d/kopt-out/m/b/report.md $tmp/b-report.md" "$d/err"
check "... and the target's report lists no failure" "! grep -q '## Failed' $r && grep -q 'over 3 models\\.' $r" "$r"

km empty
check "a target with no models: exit 1, saying so, and no report" \
	"[ $rc -eq 1 ] && grep -q \"target 'empty' has no models\" $d/err && [ ! -e $d/kopt-out/empty ]" "$d/err"
# a fresh build on one GPU whose first step fails: the worker goes on to
# the other models' steps
# project DIR M...: a folder d=DIR with the first project's spec, target
# all only, and plain models M
project() {
	d=$1; shift
	mkdir -p "$d/models"
	for m in "$@"; do printf '# model %s\nimport torch\n' "$m" > "$d/models/$m.py"; done
	sed '/^models none\|^target empty\|^target just_b/d' "$tmp/p/s.kopt" > "$d/s.kopt"
}
project "$tmp/fresh" b c
printf '# model a\n# sim: error capture\nimport torch\n' > "$d/models/a.py"
km -k all
check "-k, one GPU, the first capture fails: the worker builds the others (exit 1, b and c reported)" \
	"[ $rc -eq 1 ] && grep -q 'capture m/a/default failed: worker error: simulated failure in capture' $d/err && grep -q '^koptmake: all: 3 models: 2 optimized, 0 baseline kept, 1 failed' $d/out" "$d/out"
# the same without -k: the build stops at that failure and says how many
# ready steps it did not start, and how to keep going
rm -rf "$d/.kopt" "$d/kopt-out"
km -j1 all
check "without -k: the first capture fails, the build stops: its ready steps counted as not started, -k named" \
	"[ $rc -eq 1 ] && grep -Eq '^koptmake: stopped after a failure; [1-9][0-9]* ready steps? not started \\(use -k to keep going\\)\$' $d/err && ! grep -q 'build log cannot record' $d/err" "$d/err"
# a build started with its standard input closed (from cron or a daemon,
# `<&-`): descriptor 0 goes to whatever it opens first, a worker's pipe
# among them, and the build runs as with it open
project "$tmp/closed" a b
rc=0
(cd "$d" && timeout 50 "$KOPTMAKE" all > out 2> err <&-) || rc=$?
check "standard input closed: the build finishes, both models reported (exit $rc)" \
	"[ $rc -eq 0 ] && grep -q '^koptmake: all: 2 models: 2 optimized' $d/out" "$d/err"
echo "1..$n"
