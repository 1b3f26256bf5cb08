# tests/e2e/sim-env.sh: sourced (". sim-env.sh NAME") by the end-to-end tests
# that run koptmake against the simulated worker (tests/sim-worker.c, a TEST
# DOUBLE). Sets KOPTMAKE, KOPT_WORKER and KOPT_PYTHON (tests/sim-python, a
# TEST DOUBLE of the Python that reads the model files), clears the
# simulator's knobs, makes a scratch folder $tmp named after NAME and enters
# it (removed at exit unless KEEP is set), logs the worker's ops to
# $tmp/sim.log, and defines `check DESCRIPTION CONDITION`, which prints one
# TAP line.
: "${KOPTMAKE:=$top_builddir/koptmake}"
KOPT_WORKER=$top_builddir/tests/sim-worker
export KOPT_WORKER
# its model files are "# sim:" lines, read by a TEST DOUBLE of the worker's Python
KOPT_PYTHON=$top_srcdir/tests/sim-python
export KOPT_PYTHON
unset KOPT_LAUNCHER KOPT_SIM_ERROR_TEXT KOPT_SIM_TORCH KOPT_SIM_GRAPH_CODE KOPT_SIM_DELAY_MS KOPT_SIM_HOSTSKEW KOPT_SIM_GPU 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-$1-XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
cd "$tmp"
KOPT_SIM_LOG=$tmp/sim.log
export KOPT_SIM_LOG
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
