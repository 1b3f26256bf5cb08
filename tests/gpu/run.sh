#!/bin/bash
# tests/gpu/run.sh: the GPU tests (make check-gpu), on a machine with an
# NVIDIA GPU and a Python holding torch. Run from the build folder.
#   run.sh [OUTDIR]     results and logs go to OUTDIR (default: gpu-results)
# KOPT_DEPLOY_SPEC=DIR (a spec folder koptmake has built, with models/ and
# kopt-out/) adds the deployment's first-call check on its model
# KOPT_DEPLOY_MODEL (default softmax).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-gpu-results}
mkdir -p "$out"
W=${KOPT_WORKER:-$PWD/kopt-worker}
# the workers these tests start by hand read the source tree's models, as
# koptmake lets a worker read its spec's folders (runtime/sandbox.h): the
# home folder, where the tree may be, is hidden from them
export KOPT_SANDBOX_READ=$top${KOPT_SANDBOX_READ:+:$KOPT_SANDBOX_READ}
status=0
echo "# smoke: capture, profile, a model that fails to import"
bash "$here/smoke.sh" "$W" "$out/smoke" 2>"$out/smoke-worker.log" >"$out/smoke.log"
python3 "$here/check_smoke.py" "$out/smoke" || status=1
echo "# the worker's sandbox: a model opening a socket, one writing outside its scratch folder, one reading ~/.netrc"
bash "$here/sandbox.sh" "$W" "$out/sandbox" || status=1
echo "# a screened config that makes an illegal memory access: the screen goes on in a new worker without it"
bash "$here/screen_lost.sh" "${KOPTMAKE:-$PWD/koptmake}" "$out/screen_lost" || status=1
echo "# gate 1 reads each kernel of tests/static as Triton does (what Triton compiles, loaded as Inductor loads it)"
python3 "$here/gate_reading.py" > "$out/gate_reading.tap" 2>&1 || status=1
tail -n 1 "$out/gate_reading.tap"
echo "# reward-hacking suite"
bash "$here/cheats.sh" "$W" "$out/cheats" || status=1
echo "# the compiled baseline against eager: examples/checks"
bash "$here/baseline.sh" "${KOPTMAKE:-$PWD/koptmake}" "$out/baseline" || status=1
echo "# an ATen-fallback variant that changes the results (a test double changes the fallback)"
bash "$here/aten_auto.sh" "${KOPTMAKE:-$PWD/koptmake}" "$out/aten_auto" || status=1
echo "# the implementation-space search (space_variants = 6) and CUDA graphs at deployment"
bash "$here/space.sh" "${KOPTMAKE:-$PWD/koptmake}" "$out/space" || status=1
echo "# koptmake's own rewrites (transposed and depthwise convolutions): their numbers, and models built with them"
bash "$here/rewrites.sh" "${KOPTMAKE:-$PWD/koptmake}" "$out/rewrites" || status=1
echo "# a rewrite's variant through Inductor's graph cache: a fresh worker compiles it again from there"
python3 "$here/rewrite_cache.py" "$W" "$out/rewrite_cache" || status=1
echo "# kopt::attention's kernel against float64, and a model compiled with it"
python3 "$here/attention.py" > "$out/attention.tap" 2>&1 || status=1
cat "$out/attention.tap"
echo "# examples: capture and profile"
bash "$here/examples.sh" "$W" "$out/examples" || status=1
echo "# the bytes each kernel moves, from the GPU's counters (CUPTI's range profiler)"
python3 "$here/counters.py" "$W" "$out/counters" > "$out/counters.tap" 2>"$out/counters-worker.log" || status=1
cat "$out/counters.tap"
echo "# source knobs: screened on two examples, each compiles and matches Inductor's kernel"
python3 "$here/knobs.py" "$W" "$out/knobs" || status=1
echo "# kernel transforms (onepass, rloop) on real kernels, timed against Inductor's; the rewrites' own kernels"
python3 "$here/transforms.py" "$W" "$out/transforms" || status=1
if [ -n "${KOPT_DEPLOY_SPEC:-}" ]; then
	echo "# the deployment's first-call check: a broken kernel in $KOPT_DEPLOY_SPEC's ${KOPT_DEPLOY_MODEL:-softmax}"
	python3 "$here/deploy_check.py" "$KOPT_DEPLOY_SPEC" "${KOPT_DEPLOY_MODEL:-softmax}" || status=1
fi
echo "# Helion kernels (examples/helion) built by koptmake; needs helion (KOPT_HELION_PATH)"
bash "$here/helion.sh" "${KOPTMAKE:-$PWD/koptmake}" "$out/helion" || status=1
exit $status
