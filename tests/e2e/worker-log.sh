#!/bin/sh
# tests/e2e/worker-log.sh: every line a worker writes on stderr is kept in
# .kopt/workers/worker-SLOT.log, with the simulated worker (a test double
# that writes "sim-worker: OP MODEL" on stderr for each request, and
# "simulated crash during OP" before it aborts where the model file says
# "# sim: crash OP"). The crash's line is in the log though the step's
# message quotes only the last lines; a second run empties the slot's log
# first; KOPT_WORKER_STACKS that is not a number gets a warning there, not
# a failed build (the real worker's; the simulated one ignores it).
# Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
KOPT_WORKER=$top_builddir/tests/sim-worker
export KOPT_WORKER
# its model files are "# sim:" lines, read by a TEST DOUBLE of the worker's Python
KOPT_PYTHON=$top_srcdir/tests/sim-python
export KOPT_PYTHON
unset KOPT_LAUNCHER KOPT_TRUST_ENV KOPT_SIM_DELAY_MS KOPT_WORKER_STACKS 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-wlog-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$3" 2>/dev/null | head -20 || true; fi; }
km() { rc=0; (cd "$d" && "$KOPTMAKE" "$@" > out 2> err) || rc=$?; }

d=$tmp/p
mkdir -p "$d/models"
printf '# model a\nimport torch\n' > "$d/models/a.py"
cat > "$d/s.kopt" <<'EOF2'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 6  hot = 0.05  seed = 1 }
gates strict { seeds = 2  gamma = 1.03 }
defaults { device = sim  agents = default  gates = strict }
models m = glob("models/*.py") { }
target all = [m]
EOF2
km -j1 all
log=$d/.kopt/workers/worker-0.log
check "a build keeps the worker's stderr in .kopt/workers/worker-0.log" "[ $rc -eq 0 ] && [ -s $log ]" "$d/err"
check "... headed by the worker's pid and GPU" "head -n 1 $log | grep -q '^koptmake: worker [0-9]* started on GPU 0$'" "$log"
check "... with a line for each request it served (capture, profile, stitch)" \
	"grep -q '^sim-worker: capture m/a$' $log && grep -q '^sim-worker: profile m/a$' $log && grep -q '^sim-worker: stitch m/a$' $log" "$log"
lines=$(grep -c '^sim-worker: ' "$log")
check "... more of them ($lines) than a failed step's message would quote (8)" "[ $lines -gt 8 ]" "$log"
first=$(head -n 1 "$log")

printf '# model a, changed\n# sim: crash profile\nimport torch\n' > "$d/models/a.py"
printf '# model b\nimport torch\n' > "$d/models/b.py"
km -j1 -k all
check "a worker that crashes fails its step (exit 1)" "[ $rc -eq 1 ]" "$d/err"
check "its last words are in the log" "grep -q 'simulated crash during profile' $log" "$log"
check "the log is this run's: the first run's worker is gone from it" "! grep -qxF '$first' $log" "$log"
check "the worker started after the crash in the same slot (for b) appends, with its own header" \
	"[ \$(grep -c '^koptmake: worker [0-9]* started' $log) -ge 2 ] && grep -q '^sim-worker: capture m/b$' $log" "$log"
echo "1..$n"
