#!/bin/sh
# tests/e2e/learn-once.sh: the agents' long-term memory learns from every
# verdict exactly once, whether the verdict was computed or found in the
# cache (issue 18: -B once doubled the lessons, 113 -> 225 lines, and a
# cached verdict taught nothing). With the simulated worker (a TEST DOUBLE)
# and one model whose reduction wins with one launch config. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" learn-once
mkdir models
printf '# model m\n# sim: kernels 2\n# sim: reductions\n# sim: wins R0_BLOCK=512\nimport torch\n' > models/m.py
cat > s.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 5  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  gamma = 1.03 }
defaults { device = sim  agents = default  gates = strict }
model m { source = "models/m.py" }
target all = [m]
SPEC
mem=.kopt/memory.jsonl
# the lessons, one a line, in a fixed order, without the version line
lessons() { tail -n +2 "$mem" | sort; }
"$KOPTMAKE" -f s.kopt > out 2> err || cat err >&2
verifies=$(grep -c '^verify ' sim.log || true)
lessons > once
check "a build learns once per verdict ($(wc -l < once) lessons, $verifies verifies)" \
	"[ $verifies -gt 0 ] && [ \$(wc -l < once) -eq $verifies ]"
check "each lesson names its verdict" "[ \$(grep -c '\"k\":\"[0-9a-f]\\{32\\}\"' once) -eq $verifies ]"
"$KOPTMAKE" -f s.kopt -B > out 2> err || cat err >&2
check "-B measures again" "[ \$(grep -c '^verify ' sim.log) -eq $((2 * verifies)) ]"
lessons > twice
check "-B: the same lessons as once" "cmp -s once twice"
"$KOPTMAKE" -f s.kopt -B > out 2> err || cat err >&2
lessons > thrice
check "-B twice: the same lessons as once" "cmp -s once thrice"
rm "$mem"
: > sim.log
"$KOPTMAKE" -f s.kopt > out 2> err || cat err >&2
check "a null build runs nothing" "[ ! -s sim.log ] && grep -q 'nothing to do' out"
lessons > cached
check "... and learns the cached verdicts, once each" "cmp -s once cached"
rm "$mem"
"$KOPTMAKE" -f s.kopt -n > out 2> err || cat err >&2
"$KOPTMAKE" -f s.kopt -t query > out 2> err || cat err >&2
"$KOPTMAKE" -f s.kopt -t why verify m/default/triton_red_fused__softmax_0/c0 > out 2> err || cat err >&2
check "-n and the tools learn nothing" "[ ! -e $mem ]"
echo "1..$n"
