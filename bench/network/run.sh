#!/bin/bash
# bench/network/run.sh [SECONDS] [TARGET]: on the GPU machine, from the
# project root: builds TARGET (default capture) of bench/network/resnet101.kopt
# from an empty cache, stopped with SIGINT after SECONDS (default 420), then
# again from the compile cache that build left (a fresh .kopt but for
# .kopt/compile: Inductor's graphs and autotuning picks, Triton's kernels),
# and prints where each build's time went (bench/beyond/costs.py: each
# capture's phases). koptmake must be on PATH. Results in $OUT (or /tmp):
# cold.md, warm.md, and the first build's logs.
set -u
secs=${1:-300}; warm_secs=${WARM_SECS:-150}; target=${2:-capture}
top=$PWD out=${OUT:-/tmp}
work=/tmp/network-work
rm -rf "$work" && mkdir -p "$work" && cp bench/network/*.py bench/network/resnet101.kopt "$work"/
mkdir -p "$work/examples/models" && cp examples/models/resnet50.py "$work/examples/models/"
# resnet101.py reads ../../examples/models/resnet50.py beside it
mkdir -p "$work/bench/network" && mv "$work"/*.py "$work/bench/network/" && mv "$work/resnet101.kopt" "$work/bench/network/"
cd "$work/bench/network"
for pass in cold warm; do
	[ $pass = warm ] && { rm -rf .kopt/actions .kopt/objects .kopt/log .kopt/memory.jsonl kopt-out; }
	t0=$(date +%s%3N)
	timeout -s INT "$([ $pass = cold ] && echo "$secs" || echo "$warm_secs")" koptmake -k -f resnet101.kopt "$target" > "build-$pass.log" 2>&1
	echo "$pass: koptmake exit $?, $(( ($(date +%s%3N) - t0) / 1000 )) s"
	tail -n 4 "build-$pass.log"
	python3 "$top/bench/beyond/costs.py" .kopt "$t0" > "$pass.md" 2>&1
	cat "$pass.md"
	cp "$pass.md" "build-$pass.log" "$out/" 2>/dev/null
done
tar czf "$out/network-out.tgz" kopt-out .kopt/workers .kopt/actions .kopt/log 2>/dev/null
