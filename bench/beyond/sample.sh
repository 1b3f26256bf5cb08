#!/bin/sh
# bench/beyond/sample.sh KERNELBENCH DIR [LEVEL/NUMBER...]: copies the
# beyond-max-autotune benchmark's sample into DIR/level1, DIR/level2,
# DIR/level3.
# The rule (README.md), fixed before any run: in each level, the problems
# in the order of their numbers; the stride is the level's count divided by
# the number wanted (20, 8, 3), rounded down; every stride-th problem from
# the first is taken.
# With LEVEL/NUMBER arguments (e.g. level1/57 level2/14), only those
# problems, whatever the rule: a part of the sample built again (the
# deployment check of bench/results/2026-12-02-h200-deploy-check/).
set -eu
kb=$1
dir=$2
shift 2
if [ $# -gt 0 ]; then
	for p in "$@"; do
		level=${p%%/*}
		num=${p#*/}
		src="$kb/KernelBench/$level"
		f=$(ls "$src" 2>/dev/null | grep "^${num}_.*\.py$" | head -n 1) || true
		[ -n "$f" ] || { echo "sample.sh: no problem $num in $src" >&2; exit 2; }
		mkdir -p "$dir/$level"
		cp "$src/$f" "$dir/$level/"
		chmod u+w "$dir/$level/$f"
	done
	for level in level1 level2 level3; do
		mkdir -p "$dir/$level"
		echo "$level: $(ls "$dir/$level" | wc -l) named"
	done
	exit 0
fi
for spec in level1:20 level2:8 level3:3; do
	level=${spec%:*}
	want=${spec#*:}
	src="$kb/KernelBench/$level"
	[ -d "$src" ] || { echo "sample.sh: no $src" >&2; exit 2; }
	mkdir -p "$dir/$level"
	n=$(ls "$src" | grep -c '\.py$')
	stride=$((n / want))
	ls "$src" | grep '\.py$' | sort -t_ -k1,1n | awk -v s="$stride" '(NR - 1) % s == 0' |
		while read -r f; do cp "$src/$f" "$dir/$level/"; chmod u+w "$dir/$level/$f"; done
	echo "$level: $(ls "$dir/$level" | wc -l) of $n (stride $stride)"
done
