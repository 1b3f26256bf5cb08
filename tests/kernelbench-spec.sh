#!/bin/sh
# tests/kernelbench-spec.sh: bench/kernelbench.kopt over a stand-in checkout:
# the glob takes one model per problem file, KB_PROBLEMS narrows it. TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-kb-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/KernelBench/level1" "$tmp/KernelBench/level2"
for f in 1_Square_matrix_multiplication_ 19_ReLU 23_Softmax; do printf 'import torch\n' > "$tmp/KernelBench/level1/$f.py"; done
printf 'import torch\n' > "$tmp/KernelBench/level2/1_Conv2D_ReLU_BiasAdd.py"
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
KERNELBENCH=$tmp "$KOPTMAKE" -f "$top_srcdir/bench/kernelbench.kopt" -t dump > "$tmp/all" 2>&1
check "level 1: one model per problem" "[ \$(grep -c '^model ' $tmp/all) -eq 3 ]"
KERNELBENCH=$tmp KB_PROBLEMS='1*_*' "$KOPTMAKE" -f "$top_srcdir/bench/kernelbench.kopt" -t dump > "$tmp/some" 2>&1
check "KB_PROBLEMS narrows the range" "[ \$(grep -c '^model ' $tmp/some) -eq 2 ] && grep -q 'kb/19_ReLU' $tmp/some"
KERNELBENCH=$tmp KB_LEVEL=level2 "$KOPTMAKE" -f "$top_srcdir/bench/kernelbench.kopt" -t dump > "$tmp/l2" 2>&1
check "KB_LEVEL picks the level" "grep -q 'kb/1_Conv2D_ReLU_BiasAdd' $tmp/l2"
check "KernelBench's tolerances, strict precision" "grep -q 'atol = 0.01' $tmp/all && grep -q 'precision = strict' $tmp/all"
check "two variants per problem: defaults and max-autotune" \
	"[ \$(grep -c 'variant autotune' $tmp/all) -eq 3 ] && grep -q 'mode = \"max-autotune-no-cudagraphs\"' $tmp/all"
echo "1..$n"
