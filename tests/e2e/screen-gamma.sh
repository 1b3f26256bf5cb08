#!/bin/sh
# tests/e2e/screen-gamma.sh: a screen's points that are not faster alone
# than gamma (less a margin of 0.01) go to no verify (rules/propose.c,
# screen_by_gamma): the perf gate asks gamma of the kernel inside the
# model. With the simulated worker (a TEST DOUBLE, tests/sim-worker.c),
# whose screen times every point of this model 1.015x alone: at gamma
# 1.03 the screen keeps its best, but the first candidate is the plan's,
# and no candidate sends one of those configs; at gamma 1.02 (1.015x is
# within the margin) the first candidate is the screen's fastest. Prints
# TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" screen-gamma
mkdir models
printf '# model near\n# sim: kernels 1\n# sim: reductions\n# sim: speedup 1.015\nimport torch\n' > models/near.py
spec() {
	cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 3  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = $1  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model near { source = "models/near.py" }
target all = [near]
default all
SPEC
}
spec 1.03
"$KOPTMAKE" > out 2> err || { cat err >&2; exit 1; }
k=$(sed -n 's/^screen near\/default\/\([a-z_0-9]*\):.*/\1/p' err out | head -1)
[ -n "$k" ] || k=$("$KOPTMAKE" -t query 2>/dev/null | sed -n 's/.*screen near\/default\/\([a-z_0-9]*\).*/\1/p' | head -1)
why() { "$KOPTMAKE" -t why "$@"; }
# the screen's best configs, as text, and the candidates' strategies
best() { why "screen near/default/$k" | sed -n 's/^  best [0-9]* *\(.*\)  [0-9.]*x alone$/\1/p'; }
strategy() { why "verify near/default/$k/c$1" | sed -n 's/^  candidate *//p'; }
check "premise: the screen kept best configs at about 1.015x alone ($(best | head -1))" \
	"[ -n \"\$(best)\" ] && why 'screen near/default/$k' | grep -q '  best 1 .*  1\\.01[0-9]x alone\$'"
check "gamma 1.03: candidate 0 is not the screen's ($(strategy 0))" \
	"[ -n \"\$(strategy 0)\" ] && ! strategy 0 | grep -q '^tuner: screen'"
sent=0
for c in 0 1 2; do
	s=$(strategy $c)
	best | while read -r b; do case "$s" in *"($b)"*) echo hit;; esac; done | grep -q hit && sent=$((sent + 1))
done
check "gamma 1.03: no candidate sends one of the screen's configs" "[ $sent -eq 0 ]"
# gamma 1.02: 1.015x alone is within the margin (gamma - 0.01), not under it
spec 1.02
"$KOPTMAKE" > out 2> err || { cat err >&2; exit 1; }
check "gamma 1.02: candidate 0 is the screen's fastest ($(strategy 0))" "strategy 0 | grep -q '^tuner: screen '"
echo "1..$n"
