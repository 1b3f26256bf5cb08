#!/bin/sh
# bench/cost/run.sh KERNELBENCH OUT [SECONDS]: the cost benchmark (README.md).
# Run from a build folder with koptmake on PATH, on a GPU machine.
set -u
here=$(cd "$(dirname "$0")" && pwd)
kb=$1
out=$2
secs=${3:-540}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${KB_COST_WORK:-$out/work}
mkdir -p "$work"
sh "$here/sample.sh" "$kb" "$work/kb-sample" >/dev/null
cp "$here/sample.kopt" "$work/Koptfile"
cd "$work"
start=$(date +%s)
timeout -s INT "$secs" koptmake -k -j1 all >"$out/build.log" 2>&1
rc=$?
echo "build: exit $rc, $(( $(date +%s) - start )) s" | tee -a "$out/build.log"
if [ $rc -eq 124 ]; then
	# stopped at the deadline: finished steps are kept; run again to go on
	python3 "$here/summarize.py" .kopt/log >"$out/cost.md"
	echo "(the build was stopped at its deadline: no null build measured)" >>"$out/cost.md"
	cat "$out/cost.md"
	exit 0
fi
# a null build: no step should run and no worker start (a wrapper counts
# the worker's starts)
real=${KOPT_WORKER:-$(dirname "$(command -v koptmake)")/kopt-worker}
printf '#!/bin/sh\necho start >>"%s"\nexec "%s" "$@"\n' "$out/worker-starts" "$real" >"$out/counting-worker"
chmod +x "$out/counting-worker"
: >"$out/worker-starts"
t0=$(date +%s%N)
KOPT_WORKER="$out/counting-worker" koptmake all >"$out/null.log" 2>&1
t1=$(date +%s%N)
null=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
workers=$(wc -l <"$out/worker-starts")
python3 "$here/summarize.py" .kopt/log "$null" "$workers" >"$out/cost.md"
cat "$out/cost.md"
