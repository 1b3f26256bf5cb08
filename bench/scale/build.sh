#!/bin/sh
# bench/scale/build.sh [MODELS] [LINES] [JOBS]: a first build of MODELS
# simulated models (tests/sim-worker, a test double of the GPU worker: 1
# to 4 hot kernels each, budget 4), once with an empty long-term memory
# and once with LINES lessons of another spec in it (LINES 0: the first
# only); prints steps, wall time, time per step and koptmake's peak RSS
# of each. Issue 24: a 1,000-model build with a 200,000-line memory within
# 1.5x of the same build with an empty one.
# Run from a build folder (./koptmake and tests/sim-worker built); WORK
# names the folder to build in (default: a new one under $TMPDIR, removed
# at the end unless KEEP=1). bench/scale/run.sh runs it among the rest.
set -eu
models=${1:-1000}
lines=${2:-200000}
jobs=${3:-2}
top=$(pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$top/koptmake" ] && [ -x "$top/tests/sim-worker" ] || {
	echo "build.sh: run it from a build folder (no ./koptmake or tests/sim-worker)" >&2
	exit 2
}
work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/kopt-scale-XXXXXX")}
mkdir -p "$work/models"
cd "$work"
i=0
while [ $i -lt "$models" ]; do
	[ -e models/m$i.py ] || printf '# a simulated model, number %d\nimport torch\n' $i > models/m$i.py
	i=$((i + 1))
done
cat > Koptfile <<SPEC
device sim { gpus = $jobs  timeout = 60s }
agents default { budget = 4  hot = 0.05  seed = 1  screen = 1s }
defaults { device = sim  agents = default }
models m = glob("models/*.py")
target all = [m]
SPEC
export KOPT_WORKER="$top/tests/sim-worker"
# the placeholder model files are read by the test double of the worker's
# Python (tests/sim-python), as the simulated worker runs them
KOPT_PYTHON=$src/tests/sim-python
export KOPT_PYTHON
unset KOPT_SIM_LOG KOPT_SIM_DELAY_MS KOPT_LAUNCHER 2>/dev/null || true

# build: NAME; prints "NAME: STEPS steps, WALL s, PER ms a step, CPU s
# CPU, CPUPER ms CPU a step, RSS MB": CPU is user + system time of
# koptmake and the workers it waited for (on a shared machine the wall
# time follows the load)
build() {
	t0=$(date +%s%N)
	/usr/bin/time -f '%M %U %S' -o "$1.rss" "$top/koptmake" -j "$jobs" all > "$1.out" 2> "$1.err" ||
		{ echo "$1: the build failed" >&2; tail "$1.err" >&2; exit 1; }
	t1=$(date +%s%N)
	steps=$(sed -n 's/^koptmake: \([0-9]*\) steps\{0,1\} ran.*/\1/p' "$1.out")
	tail -n 1 "$1.rss" | awk -v n="$1" -v s="$steps" -v a="$t0" -v b="$t1" \
		'{ w = (b - a) / 1e9; c = $2 + $3
		   printf "%s: %d steps, %.1f s, %.3f ms a step, %.1f s CPU, %.3f ms CPU a step, %.0f MB\n",
			n, s, w, 1000 * w / s, c, 1000 * c / s, $1 / 1024 }'
}

rm -rf .kopt kopt-out
build empty
if [ "$lines" -gt 0 ]; then
	# LINES lessons of another spec over the feature classes this build
	# met, each verdict once (its own k), a fifth of them passes
	awk -v lines="$lines" -F'"f":"' 'NR > 1 && NF > 1 { split($2, a, "\""); cls[a[1]] = 1 }
	END {
		n = 0
		for (c in cls) names[n++] = c
		if (n == 0) names[n++] = "reduction/looped/r14/b26"
		split("warps-up warps-down x-up x-down r-up r-down r-down4 stages-up persistent", s, " ")
		print "{\"kopt-memory\":1}"
		for (i = 0; i < lines; i++) {
			pass = i % 5 == 0
			printf "{\"p\":\"/elsewhere/other.kopt\",\"f\":\"%s\",\"s\":\"%s\",\"v\":\"%s\",\"x\":%.3f,\"k\":\"%032x\"}\n",
				names[i % n], s[1 + i % 9], pass ? "pass" : "fail", pass ? 1.05 + (i % 7) / 100 : 0, i
		}
	}' .kopt/memory.jsonl > memory.seed
	rm -rf .kopt kopt-out
	mkdir .kopt
	cp memory.seed .kopt/memory.jsonl
	build "memory of $lines lines"
fi
cd "$top"
[ "${KEEP:-0}" = 1 ] || [ -n "${WORK:-}" ] || rm -rf "$work"
