#!/bin/sh
# tests/e2e/acceptance-networks-sim.sh: the GPU acceptance script (tests/gpu/
# acceptance.sh) on one target of the examples, networks (make
# check-gpu-examples EXAMPLES_TARGET=networks), with the simulated worker,
# a TEST DOUBLE; the deployment is skipped. It builds that target's models
# alone, ends with that target's report, runs no step the second time and
# leaves the one-model change and the budget raise, which change models
# of `all`, out. Prints TAP.
set -eu
. "$top_srcdir/tests/e2e/acceptance-env.sh"
set +e
bash "$top_srcdir/tests/gpu/acceptance.sh" "$tmp/out" networks > "$tmp/tap" 2>&1
st=$?
set -e
n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$tmp/tap"; fi
}
check "acceptance.sh networks exits 0 ($st)" "[ $st -eq 0 ]"
check "its three checks: the networks' report from an empty cache, the null build, the deployment skipped; no more" \
	"grep -qx 'ok 1 - from an empty cache, koptmake networks ends with the report' '$tmp/tap' &&
	 grep -q '^ok 2 - a second run runs no step' '$tmp/tap' && grep -q '^ok 3 # SKIP' '$tmp/tap' && grep -qx '1..3' '$tmp/tap'"
# the steps the build ran: the three networks' and the networks report, nothing of the other examples
models=$(grep -E '^\[[0-9]+/~?[0-9]+\] ' "$tmp/out/build.log" | awk '{ split($3, p, "/"); print p[1] }' | sort -u | tr '\n' ' ')
check "the build ran the networks' steps and the networks report alone ($models)" \
	"[ '$models' = 'convnext gpt2_block networks resnet50 ' ]"
check "the networks' report is left in the output folder" \
	"python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(sorted(m[\"model\"] for m in d[\"models\"]) != [\"convnext\", \"gpt2_block\", \"resnet50\"])' '$tmp/out/report.json' && [ -s '$tmp/out/report.md' ]"
echo "1..$n"
