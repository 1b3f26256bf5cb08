#!/bin/bash
# tests/gpu/acceptance.sh: the examples' acceptance, end to end on a machine
# with an NVIDIA GPU (make check-gpu-examples; from the build folder, where
# koptmake and kopt-worker are). Prints TAP; logs and the target's report
# (report.md, report.json) go to OUTDIR.
#   acceptance.sh [OUTDIR [TARGET]] (default: gpu-acceptance, all)
# 1. koptmake TARGET, from an empty cache, ends with the report;
# 2. a second run runs no step;
# 3. the one-line deployment reproduces each optimized model's reported
#    speedup within 10%, outputs within tolerance (deploy.py);
# 4. changing one model reruns only that model's steps (and the report);
# 5. doubling one model's budget runs only its new candidates.
# 4 and 5 change row_sum and maxpool3d: they run for `all` alone. Another
# TARGET of examples.kopt (make check-gpu-examples EXAMPLES_TARGET=
# networks: ResNet-50, the GPT-2 block and ConvNeXt) runs 1 to 3 on its
# models. A full run takes about half an hour on an H200 with cold
# Inductor caches.
# tests/e2e/acceptance-sim.sh runs it with the simulated worker, without
# the deployment (KOPT_ACCEPTANCE_NO_DEPLOY=1).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-gpu-acceptance}
target=${2:-all}
mkdir -p "$out"
out=$(cd "$out" && pwd)
K=${KOPTMAKE:-$PWD/koptmake}
work=$(mktemp -d "${TMPDIR:-/tmp}/kopt-acceptance-XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$top/examples" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (cd "$work" && tar xf -)
n=0 bad=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=$((bad + 1)); fi
}
steps() { grep -E '^\[[0-9]+/~?[0-9]+\] ' "$1" | awk '{print $2, $3}'; }

"$K" -C "$work" -k "$target" >"$out/build.log" 2>&1
check "from an empty cache, koptmake $target ends with the report" "[ -f '$work/kopt-out/$target/report.json' ]"
# the report beside the logs: the work folder goes at the end
cp "$work/kopt-out/$target/report.md" "$work/kopt-out/$target/report.json" "$out/" 2>/dev/null || true

"$K" -C "$work" "$target" >"$out/null.log" 2>&1
check "a second run runs no step" "grep -q 'nothing to do' '$out/null.log' && [ -z \"\$(steps '$out/null.log')\" ]"

if [ -n "${KOPT_ACCEPTANCE_NO_DEPLOY:-}" ]; then
	n=$((n + 1)); echo "ok $n # SKIP the deployment needs torch and a GPU"
else
	python3 "$here/deploy.py" "$work" --report "kopt-out/$target/report.json" >"$out/deploy.log" 2>&1
	rc=$?
	check "the deployment reproduces every optimized model's reported speedup (deploy.log)" "[ $rc -eq 0 ]"
fi

if [ "$target" != all ]; then
	echo "1..$n"
	exit $((bad > 0))
fi
sed -i 's/^cols = 16384$/cols = 16384 + 64/' "$work/models/row_sum.py"
"$K" -C "$work" -k all >"$out/change.log" 2>&1
others=$(steps "$out/change.log" | awk '$2 !~ /^row_sum(\/|$)/ && !($1 == "report" && $2 == "all")')
check "changing row_sum reruns row_sum's steps and the report only" \
	"[ -n \"\$(steps '$out/change.log')\" ] && [ -z \"$others\" ]"
check "... and the report shows row_sum's new times" "steps '$out/change.log' | grep -q '^report all$'"

b=$(sed -n 's/.*agents default { budget = \([0-9]*\).*/\1/p' "$work/examples.kopt" | head -n 1)
sed -i "s/agents default { budget = $b /agents default { budget = $((2 * b)) /" "$work/examples.kopt"
"$K" -C "$work" -k maxpool3d >"$out/budget.log" 2>&1
old=$(steps "$out/budget.log" | awk -v b="$b" '$1 == "verify" { c = $2; sub(/.*\/c/, "", c); if (c + 0 < b) print }')
check "budget $b -> $((2 * b)) on maxpool3d verifies candidates $b..$((2 * b - 1)) only" \
	"[ -n \"\$(steps '$out/budget.log' | grep '^verify')\" ] && [ -z \"$old\" ]"
echo "1..$n"
exit $((bad > 0))
