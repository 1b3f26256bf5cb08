# tests/e2e/acceptance-env.sh: sourced by the CPU runs of the GPU
# acceptance script (acceptance-sim.sh, acceptance-networks-sim.sh): the
# simulated worker, a TEST DOUBLE, in kopt-worker's place, no deployment
# (it needs torch and a GPU), and a scratch folder, $tmp, removed at exit.
KOPT_WORKER=$top_builddir/tests/sim-worker
KOPTMAKE=$top_builddir/koptmake
KOPT_ACCEPTANCE_NO_DEPLOY=1
export KOPT_WORKER KOPTMAKE KOPT_ACCEPTANCE_NO_DEPLOY
unset KOPT_LAUNCHER KOPT_SIM_TORCH KOPT_SIM_DELAY_MS KOPT_SIM_LOG 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-acc-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
