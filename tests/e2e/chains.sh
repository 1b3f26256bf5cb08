#!/bin/sh
# tests/e2e/chains.sh: when the hot kernels' chains of candidates are added
# (rules/chains.c), with the simulated worker (a TEST DOUBLE): once every
# variant of the model is profiled or failed, the last one to settle being
# a variant of the agents' own that fails to compile; and which variants
# get none (a variant that another beats by gamma even with its hot
# kernels at their bounds), and which kernels get none (one that could not
# make the model gamma faster even at its bound, a group's member at
# exactly 1.05 of its bound counted as at it). Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" chains
mkdir models
# two declared variants at the same speed; the search's one variant
# (coordinate descent at radius 2) does not compile
printf '# model lastfail\n# sim: kernels 2\n# sim: steady\n# sim: reductions\n# sim: nocompile autotune-cd-radius-2\nimport torch\n' > models/lastfail.py
# max-autotune three times as fast as the default variant, whose kernels
# run at their bounds already (a call of 10 us: the copy bandwidth caps them)
printf '# model capped\n# sim: kernels 2\n# sim: steady\n# sim: time 10000\n# sim: fast autotune 3\nimport torch\n' > models/capped.py
# the same three times, but the default variant's kernels far from their
# bounds (a call of 1 ms): with them at their bounds it could win
printf '# model roomy\n# sim: kernels 2\n# sim: steady\n# sim: time 1000000\n# sim: fast autotune 3\nimport torch\n' > models/roomy.py
# a call of 300 us whose first kernel takes 2/33 of the device time, at 90%
# of its bound: even at it, the model would not be gamma faster; the second
# kernel could make it so
printf '# model small\n# sim: weights 2 30\n# sim: reductions\n# sim: steady\n# sim: time 300000\nimport torch\n' > models/small.py
# a group of two pointwise kernels (weights 1 and 3 of a device time of
# 75 us, the vendor kernel's 1 the rest): the first at exactly 1.05 of its
# bound (its FLOPs at the peak G, 15.75 us of its 15 us), counted as at its
# bound, not as able to vanish; the second at 0.694 (its bytes, 31.2 us of
# 45 us). The group's room is 0.6 x 0.306 of the device time: 13.8 us of
# 100, at most 16.0% faster, under gamma 1.3 (were the first to vanish,
# 28.8 us: 40.4%, over it)
# a call of 300 ms whose first kernel takes 1/61 of the device time (hot
# at 1%): its room, its time less its bound, thousands of microseconds,
# worked out below from the profile's own figures
printf '# model big\n# sim: weights 1 60\n# sim: reductions\n# sim: steady\n# sim: time 300000000\nimport torch\n' > models/big.py
printf '# model atbound\n# sim: group\n# sim: pointwise\n# sim: weights 1 3\n# sim: steady\n# sim: time 100000\n# sim: host 0.25\n# sim: flops 100\n# sim: peak 106522.00634920635\nimport torch\n' > models/atbound.py
cat > test.kopt <<'SPEC'
device sim { gpus = 1  timeout = 30s }
agents search { budget = 2  hot = 0.05  seed = 1  backend = builtin  space_variants = 1 }
agents plain { budget = 2  hot = 0.05  seed = 1  backend = builtin }
agents fine { budget = 2  hot = 0.01  seed = 1  backend = builtin }
gates strict { seeds = 3  atol = 1e-4  rtol = 1e-4  gamma = 1.03  repeats = 10  precision = strict }
gates wide { seeds = 3  atol = 1e-4  rtol = 1e-4  gamma = 1.3  repeats = 10  precision = strict }
defaults { device = sim  agents = plain  gates = strict }
model lastfail {
  source = "models/lastfail.py"  agents = search
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model capped {
  source = "models/capped.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model roomy {
  source = "models/roomy.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model small { source = "models/small.py" }
model atbound { source = "models/atbound.py"  gates = wide }
model big { source = "models/big.py"  agents = fine }
target all = [lastfail, capped, roomy, small, atbound, big]
default all
SPEC

rc=0
"$KOPTMAKE" -j1 > out 2> err || rc=$?
check "the build succeeds (exit $rc): a failed variant of the agents' own fails nothing" "[ $rc -eq 0 ] && [ -f kopt-out/all/report.json ]"
check "lastfail: the search's variant was tried and failed to compile" \
	"grep -q '^| autotune-cd-radius-2 | not run | .*capture failed: worker error: simulated: the compile of this variant failed' kopt-out/lastfail/report.md"
check "lastfail: the declared variants' kernels got their chains after it settled" \
	"grep -q '^verify lastfail default ' sim.log && grep -q '^verify lastfail autotune ' sim.log"
# koptmake's log: the failed capture's record comes before the first chain step's
first_chain=$(awk -F'\t' '$4 == "screen" && $5 ~ /^lastfail\// { print NR; exit }' .kopt/log)
failed_at=$(awk -F'\t' '$4 == "capture" && $5 == "lastfail/autotune-cd-radius-2" && $3 ~ /^failed/ { print NR; exit }' .kopt/log)
check "lastfail: no chain step ran before the last variant settled (log line $first_chain after $failed_at)" \
	"[ -n '$first_chain' ] && [ -n '$failed_at' ] && [ '$first_chain' -gt '$failed_at' ]"
check "capped: the slower variant's kernels get no candidates, and its report row says why" \
	"! grep -q '^\(screen\|verify\) capped default ' sim.log &&
	 grep -q '^| default | fail | .*no candidates: with its hot kernels at their bounds it would take [0-9.]* us per call, and autotune takes' kopt-out/capped/report.md"
check "roomy: a slower variant whose kernels could still make it win keeps its chains" \
	"grep -q '^verify roomy default ' sim.log && grep -q '^verify roomy autotune ' sim.log && ! grep -q 'no candidates: with its hot kernels' kopt-out/roomy/report.md"
check "small: the kernel that cannot make the model gamma faster gets no candidates, and the report says why (300 / 298.3 us: at most 0.6% faster)" \
	"! grep -q '^\(screen\|verify\) small default triton_red_fused__softmax_0 ' sim.log &&
	 grep -q '^verify small default triton_red_fused__softmax_1 ' sim.log &&
	 grep -q '^- triton_red_fused__softmax_0 (variant default): left alone: even at its bound it would make the model at most 0.6% faster (1.7 us of 300.0 us per call), under gamma 1.03\$' kopt-out/small/report.md"
check "atbound: a group member at exactly 1.05 of its bound counts as at it: the group is left alone, at most 16.0% faster" \
	"! grep -q '^verify atbound ' sim.log &&
	 grep -q '^- triton_poi_fused_[a-z_]*[0-9]* (variant default): left alone: even at its bound it would make the model at most 16.0% faster (13.8 us of 100.0 us per call), under gamma 1.30\$' kopt-out/atbound/report.md"
# the left-alone line's figures from the profile: the kernel's time less
# its bound, in us; the call's time; at most t / (t - room) - 1 faster
want=$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["profile"]
k = [r for r in p["rows"] if r["name"] == "triton_red_fused__softmax_0"][0]
room, t = k["ns_per_call"] - k["bound_ns"], p["model_ns_per_call"]
print("at most %.1f%% faster (%.1f us of %.1f us per call)" % ((t / (t - room) - 1) * 100, room / 1e3, t / 1e3))
' kopt-out/big/profile.json 2>/dev/null || echo none)
check "big: a left-alone kernel's room and the call's time, in us, from its profile: $want" \
	"grep -qF -- '- triton_red_fused__softmax_0 (variant default): left alone: even at its bound it would make the model $want, under gamma 1.03' kopt-out/big/report.md"
grep -q 'left alone: even' kopt-out/atbound/report.md || grep -i 'alone\|^verify atbound' kopt-out/atbound/report.md sim.log | sed 's/^/# /' | head -5
lines=$(wc -l < sim.log)
rc=0
"$KOPTMAKE" -j1 > out2 2> err2 || rc=$?
check "a second build runs nothing (exit $rc): the chains and the variants left without are the same" \
	"[ $rc -eq 0 ] && [ \$(wc -l < sim.log) -eq $lines ]"
echo "1..$n"
