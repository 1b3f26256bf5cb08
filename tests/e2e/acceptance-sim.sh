#!/bin/sh
# tests/e2e/acceptance-sim.sh: the GPU acceptance script (tests/gpu/
# acceptance.sh) on the project's own examples with the simulated worker, a
# TEST DOUBLE: the build from an empty cache, the null build, a one-model
# change and a budget raise behave as on the GPU; the deployment is skipped.
set -eu
KOPT_WORKER=$top_builddir/tests/sim-worker
KOPTMAKE=$top_builddir/koptmake
KOPT_ACCEPTANCE_NO_DEPLOY=1
export KOPT_WORKER KOPTMAKE KOPT_ACCEPTANCE_NO_DEPLOY
unset KOPT_LAUNCHER KOPT_SIM_TORCH KOPT_SIM_DELAY_MS KOPT_SIM_LOG 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-acc-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
exec bash "$top_srcdir/tests/gpu/acceptance.sh" "$tmp"
