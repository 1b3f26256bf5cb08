#!/bin/sh
# bench/beyond/sample.sh KERNELBENCH DIR: copies the beyond-max-autotune
# benchmark's sample into DIR/level1, DIR/level2, DIR/level3.
# The rule (README.md), fixed before any run: in each level, the problems
# in the order of their numbers; the stride is the level's count divided by
# the number wanted (20, 8, 3), rounded down; every stride-th problem from
# the first is taken.
set -eu
kb=$1
dir=$2
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
