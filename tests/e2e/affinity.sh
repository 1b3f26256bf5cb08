#!/bin/sh
# tests/e2e/affinity.sh: a worker keeps the model it has loaded. With the
# simulated worker (a TEST DOUBLE) and the project's examples on one GPU,
# count how often the worker's next request names another model variant
# than its last (each such switch is a recompile on a real GPU). FIFO order
# switched at 140 of 213 requests, 120 of the 184 captures, profiles and
# verifies; the bound here is 1.5 times the number of model variants.
# Prints TAP.
set -eu
KOPT_WORKER=$top_builddir/tests/sim-worker
export KOPT_WORKER
unset KOPT_LAUNCHER KOPT_SIM_TORCH KOPT_SIM_DELAY_MS 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-aff-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$top_srcdir/examples" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (cd "$tmp" && tar xf -)
KOPT_SIM_LOG=$tmp/sim.log
export KOPT_SIM_LOG
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
"$top_builddir/koptmake" -C "$tmp" all >"$tmp/out" 2>&1 || true
check "the examples build with the simulated worker" "[ -f '$tmp/kopt-out/all/report.json' ]"
reqs=$(wc -l <"$tmp/sim.log")
keys=$(awk '$1 != "race" { print $2, $3 }' "$tmp/sim.log" | sort -u | wc -l)
# the stitch compiles every variant of its model anyway: count the rest
switches=$(awk '$1 != "race" && $1 != "stitch" { k = $2 " " $3; if (k != prev) s++; prev = k } END { print s + 0 }' "$tmp/sim.log")
echo "# $reqs requests, $keys model variants, $switches switches"
check "captures, profiles and verifies switch model variant at most 1.5 times per variant ($switches for $keys)" \
	"[ $switches -le $((3 * keys / 2)) ]"
first_verify=$(grep -n '^verify ' "$tmp/sim.log" | head -n 1 | cut -d: -f1)
check "the first model's candidates are verified before the last model is captured" \
	"[ $first_verify -lt \$(grep -n '^capture ' '$tmp/sim.log' | tail -n 1 | cut -d: -f1) ]"
echo "1..$n"
