#!/bin/sh
# tests/e2e/screen.sh: screening (rules/screen.c) end to end with the
# simulated worker (a TEST DOUBLE, tests/sim-worker.c), whose screen gives
# each config the speedup its verify would. Each hot kernel's launch
# configs are screened once, before its first candidate; the first
# candidates are the screen's best, fastest first, and the plan follows. A
# budget raise screens nothing again; a screen run again that finds the
# same configs reruns nothing downstream; a new screen time reruns the
# screens and the chains whose configs changed; a failed screen, or one the
# worker could not run, leaves the chain to the plan; screen = 0 adds no screen step and builds what a spec
# without screening built. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" screen
mkdir models
# two Triton reductions at a third and two thirds of the copy bandwidth:
# neither is left alone
printf '# model wide\n# sim: kernels 2\n# sim: reductions\nimport torch\n' > models/wide.py
spec() {
	cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = ${BUDGET:-4}  hot = 0.05  seed = 1  backend = builtin  $1 }
gates strict { seeds = ${SEEDS:-5}  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model wide { source = "models/wide.py" }
target all = [wide]
default all
SPEC
}
build() { : > sim.log; "$KOPTMAKE" "$@" > out 2> err || { cat err >&2; return 1; }; }
ops() { grep -c "^$1 " sim.log || true; }
# the kernels with candidates, from the report
kernels() { sed -n 's/^\(triton_[a-z_0-9]*\) (variant default): .*candidate.*/\1/p' kopt-out/wide/report.md; }
# -t why screen: the best configs as text, in order; their speedups
best() { "$KOPTMAKE" -t why "screen wide/default/$1" | sed -n 's/^  best [0-9]* *\(.*\)  [0-9.]*x alone$/\1/p'; }
speeds() { "$KOPTMAKE" -t why "screen wide/default/$1" | sed -n 's/^  best .*  \([0-9.]*\)x alone$/\1/p'; }
# -t why verify: candidate I's strategy
strategy() { "$KOPTMAKE" -t why "verify wide/default/$1/c$2" | sed -n 's/^  candidate *//p'; }

spec "screen = 0"
build
cp -r kopt-out before
check "screen = 0: no screen step" "! \"$KOPTMAKE\" -t query | grep -q ' screen ' && [ \$(ops screen) -eq 0 ]"
check "screen = 0: the plan's candidates (c0 is the coder's)" \
	"grep -q '^| 0 | coder: ' kopt-out/wide/report.md && ! grep -q 'tuner: screen' kopt-out/wide/report.md"
check "screen = 0: the report's GPU time has no screen column" \
	"grep -q '^| model | capture | profile | verify | stitch | all |\$' kopt-out/all/report.md && ! grep -q '\"screen\"' kopt-out/all/report.json"

spec ""
build
ks=$(kernels)
set -- $ks
check "two hot kernels with candidates ($(echo $ks))" "[ $# -eq 2 ]"
check "one screen per hot kernel" \
	"[ \$(ops screen) -eq 2 ] && [ \$(grep -c \"^screen wide default $1\$\" sim.log) -eq 1 ] && [ \$(grep -c \"^screen wide default $2\$\" sim.log) -eq 1 ]"
for k in $ks; do
	s=$(grep -n "^screen wide default $k\$" sim.log | cut -d: -f1)
	v=$(grep -n "^verify wide default $k " sim.log | head -1 | cut -d: -f1)
	check "$k: screened before its first verify (lines $s, $v)" "[ -n '$s' ] && [ -n '$v' ] && [ $s -lt $v ]"
	best "$k" > best.$k
	check "$k: the screen kept its three best" "[ \$(wc -l < best.$k) -eq 3 ]"
	check "$k: fastest first ($(speeds "$k" | tr '\n' ' '))" "speeds $k | sort -rn -c"
	i=0
	while read -r cfg; do
		check "$k: c$i is the screen's best $((i + 1)) ($cfg)" "[ \"\$(strategy $k $i)\" = 'tuner: screen ($cfg)' ]"
		i=$((i + 1))
	done < best.$k
	check "$k: then the plan (c3: $(strategy "$k" 3))" "strategy $k 3 | grep -q '^coder: '"
	check "$k: the proposal's reason gives the time alone" \
		"\"$KOPTMAKE\" -t query propose wide/default/$k/c0 | grep -q '\"reason\": \"screen: .* ([0-9.]*x alone)\"'"
done
check "the model report: the screen's line above each kernel's candidates" \
	"[ \$(grep -c '^Screen: [0-9]* launch configs tried alone in [0-9.]* s; the best [0-9.]*x alone: XBLOCK=.*Candidates from it: c0, c1, c2.\$' kopt-out/wide/report.md) -eq 2 ]"
check "the report's GPU time has a screen column" \
	"grep -q '^| model | capture | profile | screen | verify | stitch | all |\$' kopt-out/all/report.md && grep -q '\"screen\"' kopt-out/all/report.json"
check "-t why screen lists every config tried" \
	"[ \$(\"$KOPTMAKE\" -t why screen wide/default/$1 | grep -c '^  | [0-9]* | XBLOCK=') -eq \$(\"$KOPTMAKE\" -t why screen wide/default/$1 | sed -n 's/^screen .*: \\([0-9]*\\) configs tried alone.*/\\1/p') ]"

build
check "a null build does no worker work" "[ ! -s sim.log ] && grep -q 'nothing to do' out err"

# a new seed count reruns the profiles (their baseline check) with the
# same result; the screens read the profiles' results, not their keys
SEEDS=6 spec ""
build
check "seeds 5 -> 6: the profile runs again, with the same result (premise)" \
	"[ \$(ops profile) -eq 1 ] && [ \$(ops capture) -eq 0 ]"
check "... and no screen runs again" "[ \$(ops screen) -eq 0 ]"
spec ""
build

BUDGET=6 spec ""
build
check "budget 4 -> 6: no screen again, the new candidates only" \
	"[ \$(ops screen) -eq 0 ] && [ \$(ops verify) -eq 4 ] && [ \$(grep -c '^verify .* c[0-3]\$' sim.log || true) -eq 0 ]"

for k in $ks; do best "$k" > before.$k; done
BUDGET=6 spec "screen_configs = 47"
build
check "screen_configs 48 -> 47: the screens run again" "[ \$(ops screen) -eq 2 ]"
check "... find the same configs, and nothing downstream runs" \
	"! grep -q '^\[.*\] propose ' out && [ \$(ops verify) -eq 0 ] && [ \$(ops stitch) -eq 0 ] && cmp -s before.$1 best.$1"

BUDGET=6 spec "screen = 3s"
build
check "screen 20s -> 3s: the screens run again" "[ \$(ops screen) -eq 2 ]"
best "$1" > after.$1
check "... $1's best changed (premise)" "! cmp -s before.$1 after.$1"
check "... and its chain follows: c0 is the new best, verified" \
	"[ \"\$(strategy $1 0)\" = \"tuner: screen (\$(head -1 after.$1))\" ] && grep -q \"^verify wide default $1 \" sim.log"

spec "screen = 0"
build
check "back to screen = 0: nothing runs" "[ ! -s sim.log ]"
check "... and kopt-out is what the first build with screen = 0 wrote" "diff -r before kopt-out > /dev/null"

# a screen that fails: the chain goes on with the plan alone (-k, as for
# any failed step), and the screen runs again next time, the chain not
mkdir broken && cd broken && mkdir models
printf '# model broken\n# sim: kernels 1\n# sim: reductions\n# sim: error screen\nimport torch\n' > models/broken.py
# a worker that cannot screen the kernel answers so; that answer is kept
printf '# model soft\n# sim: kernels 1\n# sim: reductions\n# sim: softfail screen\nimport torch\n' > models/soft.py
# every config but R0_BLOCK=512 loses: the screen finds it without lessons
printf '# model found\n# sim: kernels 1\n# sim: reductions\n# sim: wins R0_BLOCK=512\nimport torch\n' > models/found.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 4  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model broken { source = "models/broken.py" }
model found { source = "models/found.py" }
model soft { source = "models/soft.py" }
target all = [broken, found, soft]
default all
SPEC
: > ../sim.log
rc=0
"$KOPTMAKE" -k > out 2> err || rc=$?
cd ..
check "a failed screen fails the build (status $rc)" "[ $rc -eq 1 ] && grep -q 'screen broken/default/.* failed: worker error: simulated failure in screen' broken/err"
check "... and its chain goes on with the plan: four candidates verified, c0 the coder's" \
	"[ \$(grep -c '^verify broken ' sim.log) -eq 4 ] && grep -q '^| 0 | coder: ' broken/kopt-out/broken/report.md"
check "... the model report says the screen failed" \
	"grep -q '^Screen: failed (worker error: simulated failure in screen); the candidates follow the plan alone.\$' broken/kopt-out/broken/report.md"
check "a screen the worker could not run: the plan's candidates, and the report says why" \
	"[ \$(grep -c '^verify soft ' sim.log) -eq 4 ] && grep -q '^| 0 | coder: ' broken/kopt-out/soft/report.md && grep -q '^Screen: could not run (simulated: no launch config to start from); the candidates follow the plan alone.\$' broken/kopt-out/soft/report.md"
check "the screen finds the one winning config: c0 sets R0_BLOCK=512 and passes" \
	"grep -q '^| 0 | tuner: screen (XBLOCK=[0-9]* R0_BLOCK=512 .* | pass | 1.4' broken/kopt-out/found/report.md"
: > sim.log
rc=0
(cd broken && "$KOPTMAKE" -k > out 2> err) || rc=$?
check "the next build screens again (status $rc), and the chain it left is fresh" \
	"[ $rc -eq 1 ] && grep -q 'screen broken/default/.* failed' broken/err && [ \$(grep -c '^verify ' sim.log) -eq 0 ]"
check "... and the screen that could not run is not asked again" "! grep -q '^screen soft ' sim.log"

# every config is slower than the kernel's own (the simulated speedup is
# 0.9 for all): the screen times them alone and none goes to the gates
cd "$tmp" && mkdir slower && cd slower && mkdir models
printf '# model slow\n# sim: kernels 1\n# sim: reductions\n# sim: speedup 0.9\nimport torch\n' > models/slow.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 8  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model slow { source = "models/slow.py" }
target all = [slow]
default all
SPEC
: > ../sim.log
"$KOPTMAKE" > out 2> err || { cat err >&2; exit 1; }
cd ..
check "a kernel whose screened configs are all slower: screened once, no candidate gated" \
	"[ \$(grep -c '^screen slow ' sim.log) -eq 1 ] && [ \$(grep -c '^verify slow ' sim.log) -eq 0 ]"
check "... and the report says why" \
	"grep -q 'planner: the screen found none of [0-9]* launch configs faster than the kernel.s own alone, and no other strategy applies' slower/kopt-out/slow/report.md"
echo "1..$n"
