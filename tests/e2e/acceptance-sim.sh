#!/bin/sh
# tests/e2e/acceptance-sim.sh: the GPU acceptance script (tests/gpu/
# acceptance.sh) on the project's own examples with the simulated worker, a
# TEST DOUBLE: the build from an empty cache, the null build, a one-model
# change and a budget raise behave as on the GPU; the deployment is skipped.
set -eu
. "$top_srcdir/tests/e2e/acceptance-env.sh"
# not exec: the scratch folder goes when this shell ends
bash "$top_srcdir/tests/gpu/acceptance.sh" "$tmp"
