# tests/e2e/sim-env.sh: sourced (". sim-env.sh NAME") by the end-to-end tests
# that run koptmake against the simulated worker (tests/sim-worker.c, a TEST
# DOUBLE). Sets KOPTMAKE, KOPT_WORKER and KOPT_PYTHON (tests/sim-python, a
# TEST DOUBLE of the Python that reads the model files), clears the
# simulator's knobs, makes a scratch folder $tmp named after NAME and enters
# it (removed at exit unless KEEP is set), logs the worker's ops to
# $tmp/sim.log, and defines `check DESCRIPTION CONDITION`, which prints one
# TAP line, and `one_model`, which writes a one-model spec.
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
# one_model: models/m.py (two simulated kernels) and test.kopt building it
# alone, for tests about the build rather than the model
one_model() {
	mkdir models
	printf '# model m\n# sim: kernels 2\nimport torch\n' > models/m.py
	cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 3  atol = 1e-4  rtol = 1e-4  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model m { source = "models/m.py" }
target all = [m]
default all
SPEC
}
