#!/bin/sh
# bench/cost/sample.sh KERNELBENCH DIR: copies the cost benchmark's sample of
# KernelBench level 1 (README.md says which and why) into DIR.
set -eu
kb=$1
dir=$2
mkdir -p "$dir"
src="$kb/KernelBench/level1"
[ -d "$src" ] || { echo "sample.sh: no $src" >&2; exit 2; }
{
	ls "$src" | LC_ALL=C sort | awk 'NR % 12 == 1'
	ls "$src" | grep -i -e pooling -e reduction
} | sort -u | while read -r f; do cp "$src/$f" "$dir/"; done
ls "$dir" | wc -l
