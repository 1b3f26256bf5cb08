#!/bin/bash
# bench/memory/run.sh: does the long-term memory bring a second spec's best
# candidate earlier? On a GPU machine, from the source tree, with koptmake
# on PATH:
#   bench/memory/run.sh [OUTDIR] [GPUS] [BUDGET]     (defaults: memory-out 1 8)
# 1. builds examples/examples.kopt (in a copy, empty cache) at BUDGET: the
#    first spec, whose verdicts become lessons;
# 2. builds second.kopt beside it, sharing that cache (A: with the lessons);
# 3. builds second.kopt in a copy without the cache (B: the built-in order).
# Prints, per run, each kernel's "N candidates, the best at cK" line from the
# model reports; copies the reports to OUTDIR. A benchmark: it prints
# figures, it asserts nothing.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-memory-out}; gpus=${2:-1}; budget=${3:-8}
mkdir -p "$out"; out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kopt-memory-XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$src/examples" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (mkdir "$work/a" && cd "$work/a" && tar xf -)
cd "$work/a"
sed -i -e "/^device /s/gpus = [0-9]* /gpus = $gpus /" \
       -e "/^agents default /s/budget = [0-9]* /budget = $budget /" examples.kopt
best() { for f in "$@"; do grep ' candidates*, ' "$f" | sed "s|^|$(basename "$(dirname "$f")"): |"; done; }
s=$(date +%s)
koptmake -f examples.kopt -k all > "$out/first.log" 2>&1 || true
echo "== first spec (examples.kopt): $(( $(date +%s) - s )) s"
best kopt-out/*/report.md
sed -e "/^device /s/gpus = [0-9]* /gpus = $gpus /" -e "/^agents default /s/budget = [0-9]* /budget = $budget /" \
    "$src/bench/memory/second.kopt" > second.kopt
mkdir -p models2 "$work/b/models2"
cp "$src/bench/memory/softmax_wide.py" models2/
cp models2/softmax_wide.py "$work/b/models2/" && cp second.kopt "$work/b/"
for run in a b; do
	cd "$work/$run"
	koptmake -f second.kopt -k all > "$out/second-$run.log" 2>&1 || true
	echo "== second spec, $([ $run = a ] && echo 'A: with the first spec'"'"'s lessons' || echo 'B: fresh cache')"
	best kopt-out/softmax_wide/report.md
	cp kopt-out/softmax_wide/report.md "$out/second-$run.md"
done
cp "$work/a/.kopt/memory.jsonl" "$out/" 2>/dev/null || true
