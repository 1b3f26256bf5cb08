#!/bin/sh
# tests/e2e/memory.sh: the agents' long-term memory, end to end through
# propose and verify. With the simulated worker (a TEST DOUBLE), two specs
# in one folder share a cache; each has one model whose only Triton kernel
# is a reduction (R0_BLOCK 2048) that wins with one launch config, R0_BLOCK
# 512 (the strategy r-down4), and loses with every other. The first spec finds it by search; the second, built on the first's
# lessons, must try it first, and without them (a fresh cache) must not.
# Screening is off: a screen finds that config before any plan
# (tests/e2e/screen.sh), and the planner's order is what this test measures.
# Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" memory
mkdir models
for m in first second; do
	printf '# model %s\n# sim: kernels 1\n# sim: reductions\n# sim: wins R0_BLOCK=512\nimport torch\n' "$m" > "models/$m.py"
	cat > "$m.kopt" <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 6  hot = 0.05  seed = 1  backend = builtin  screen = 0 }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model $m { source = "models/$m.py" }
target all = [$m]
default all
SPEC
done
# "KERNEL (variant V): N candidates, the best at cK (S)." -> K
best_at() { sed -n 's/.*the best at c\([0-9]*\) .*/\1/p' "$1" | head -1; }
first_strategy() { awk -F'|' '$2 ~ /^ 0 $/ { print $3; exit }' "$1"; }
# build DIR NAME: builds NAME.kopt in DIR, prints where its best came
build() {
	(cd "$1" && "$KOPTMAKE" -f "$2.kopt" > out 2> err) || cat "$1/err" >&2
	best_at "$1/kopt-out/$2/report.md"
}

k1=$(build . first)
check "first spec: found r-down4 by search, at candidate $k1" \
	"[ -n '$k1' ] && [ '$k1' -gt 0 ] && grep -q \"| $k1 | coder: r-down4 \" kopt-out/first/report.md"
check "lessons are filed with the reduction's length (the class the planner reads)" \
	"grep -q '\"f\":\"reduction/looped/r14/b[0-9]*\",\"s\":\"r-down4\",\"v\":\"pass\"' .kopt/memory.jsonl"

mkdir fresh && cp -r models second.kopt fresh/
kf=$(KOPT_SIM_LOG= build fresh second)
check "second spec without the lessons: the built-in order, best at candidate $kf" "[ -n '$kf' ] && [ '$kf' = '$k1' ]"

ks=$(build . second)
check "second spec with the first's lessons: best at candidate $ks, fewer than $kf" \
	"[ -n '$ks' ] && [ '$ks' -lt '$kf' ]"
check "... its first candidate is the strategy that won for the first spec" \
	"first_strategy kopt-out/second/report.md | grep -q '^ coder: r-down4 '"
check "the report says the plan was ranked by the first spec's lessons" \
	"grep -q '^Planner: [0-9]* lessons from other specs for reduction/looped/r14/b[0-9]*; first: r-down4 (the config it leads to, XBLOCK=1 R0_BLOCK=1/32 num_warps=16 num_stages=1, passed 1 of 1, ' kopt-out/second/report.md"
check "... and, in the fresh cache, that it was the built-in order" \
	"grep -q '^Planner: the built-in order (no lessons from other specs' fresh/kopt-out/second/report.md"
"$KOPTMAKE" -f second.kopt -t memory > mem.out 2> err || cat err >&2
check "-t memory: the class, its lessons from both specs, r-down4 passed in both" \
	"grep -q '^reduction/looped/r14/b[0-9]*: 12 lessons from 2 specs$' mem.out && grep -q '^  r-down4  *2  *2  1.4[0-9]*x$' mem.out"
check "-t memory: the launch config that won, in the problem's terms" \
	"grep -q '^  XBLOCK=1 R0_BLOCK=1/32 num_warps=16 num_stages=1  *2  *2  1.4[0-9]*x$' mem.out"
"$KOPTMAKE" -f second.kopt -t memory pointwise/flat/b0 > mem.out 2> err
check "-t memory CLASS: says when the class has no lessons" "grep -q 'no lessons for pointwise/flat/b0' mem.out"
(mkdir empty && cd empty && cp -r ../models ../second.kopt . && "$KOPTMAKE" -f second.kopt -t memory > ../mem.out 2> ../err)
check "-t memory on a new cache: no lessons yet" "grep -q 'memory.jsonl: no lessons yet' mem.out"
mkdir -p empty/.kopt && echo '{"kopt-memory":9}' > empty/.kopt/memory.jsonl
set +e
(cd empty && "$KOPTMAKE" -f second.kopt -t memory > ../mem.out 2> ../err)
status=$?
set -e
check "-t memory on a file of another version: status 1 and why" \
	"[ $status -eq 1 ] && grep -q 'memory.jsonl: not a memory file of version 1' err"
echo "1..$n"
