#!/bin/sh
# tests/e2e/transforms.sh: the analyst's kernel transforms and the skills,
# end to end with the simulated worker (a TEST DOUBLE, tests/sim-worker.c).
# A looped reduction whose statistics read its row twice ("# sim: looped")
# gets the analyst's transforms in its screen's request (persist=on,
# onepass=welford, onepass=sumsq, each with why); the one that pays
# ("# sim: knob onepass=welford": 1.6x alone) becomes candidate 0, named
# after it, passes, and the report says the analyst's diagnosis made the
# win. The memory files it as a skill (its edit, its config, the kernel's
# class); a second spec's build over a kernel of the same feature class
# tries the skill first, and its report says which skill made its win. A
# skill learned in a build is not tried in the same build (the memory as
# it stood when the build began), and is in the next build of the same
# spec. A kernel the analyst finds nothing for gets no transform. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" transforms
mkdir models
printf '# model looped\n# sim: kernels 1\n# sim: reductions\n# sim: looped\n# sim: knob onepass=welford\nimport torch\n' > models/looped.py
printf '# model other\n# sim: kernels 1\n# sim: reductions\n# sim: looped\n# sim: knob onepass=welford\n# other bytes\nimport torch\n' > models/other.py
printf '# model plain\n# sim: kernels 1\n# sim: reductions\nimport torch\n' > models/plain.py
spec() { # spec FILE MODEL...
	f=$1
	shift
	{
		echo 'device sim { gpus = 1  timeout = 30s }'
		echo 'agents default { budget = 4  hot = 0.05  seed = 1  backend = builtin }'
		echo 'gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }'
		echo 'defaults { device = sim  agents = default  gates = strict }'
		for m in "$@"; do echo "model $m { source = \"models/$m.py\" }"; done
		echo "target all = [$(echo "$*" | sed 's/ /, /g')]"
		echo 'default all'
	} > "$f"
}
k=triton_red_fused__softmax_0
spec a.kopt looped plain
"$KOPTMAKE" -f a.kopt > out 2> err || { cat err >&2; exit 1; }
"$KOPTMAKE" -f a.kopt -t why screen "looped/default/$k" > why.txt
check "the analyst asks for persist=on, onepass=welford and onepass=sumsq, each with why" \
	"grep -q '^  analyst                persist=on: reads its row of 16384 twice' why.txt && grep -q '^  analyst                onepass=welford: its statistics take two loops over the row' why.txt && grep -q '^  analyst                onepass=sumsq: ' why.txt"
check "the screen's best is the transform that pays, from the analyst" \
	"grep -q '^  best 1 .* + onepass=welford  1\\.[0-9]*x alone (from the analyst: its statistics take two loops' why.txt"
"$KOPTMAKE" -f a.kopt -t query propose "looped/default/$k/c0" > c0.json
check "c0 is that point, named after the transform, and says the analyst chose it" \
	"grep -q '\"name\": \"screen:onepass\"' c0.json && grep -q '\"edit\": \"onepass=welford\"' c0.json && grep -q '\"transform\": \"its statistics take two loops' c0.json"
check "the report names the winning transform and the diagnosis that chose it" \
	"grep -q '^| $k | tuner: screen onepass=welford (.*); analyst: its statistics take two loops over the row: Welford' kopt-out/looped/report.md"
check "the memory files the win as a skill: its edit, its config in the problem's terms, the kernel's class" \
	"grep -q '\"s\":\"screen:onepass\",\"v\":\"pass\",\"x\":1\\.[0-9]*,\"c\":\"XBLOCK=1 R0_BLOCK=1/8 num_warps=16 num_stages=1\",\"e\":\"onepass=welford\",\"h\":\"[0-9a-f]\\{16\\}\"' .kopt/memory.jsonl"
check "-t memory lists the skill" \
	"\"$KOPTMAKE\" -f a.kopt -t memory | grep -q '^  onepass=welford  *1  *1  1\\.[0-9]*x\$'"
"$KOPTMAKE" -f a.kopt -t why screen "plain/default/$k" > plain.txt
check "a kernel the analyst finds nothing for: no transform, no skill from this build" \
	"! grep -q '^  analyst\\|^  skill' plain.txt"
check "the coder's persistent edit is named persist=on, the screen's name for the same text" \
	"for i in 1 2 3; do \"\$KOPTMAKE\" -f a.kopt -t query propose looped/default/$k/c\$i; done | grep -q '\"edit\": \"persist=on\"'"
spec b.kopt other
"$KOPTMAKE" -f b.kopt > out2 2> err2 || { cat err2 >&2; exit 1; }
"$KOPTMAKE" -f b.kopt -t why screen "other/default/$k" > why2.txt
check "another spec's kernel of the same feature class gets the skill, first" \
	"grep -q '^  skill                  onepass=welford, 1\\.[0-9]*x in 1 of 1 try on kernels of its feature class' why2.txt && grep -q '^  | 1 | .* + onepass=welford | 1\\.[0-9]*x' why2.txt"
check "its report says which skill made its win" \
	"grep -q '^| $k | tuner: screen onepass=welford (.*); skill: onepass=welford, 1\\.[0-9]*x in 1 of 1 try on kernels of its feature class' kopt-out/other/report.md"
# the plain kernel won with launch configs only: no skill; a spec whose
# looped kernel won in this build finds its skill in the next build
mkdir c && cd c && mkdir models && cp ../models/looped.py ../models/other.py models/
spec c.kopt looped other
"$KOPTMAKE" -f c.kopt > out 2> err || { cat err >&2; exit 1; }
check "within one build, no skill learned in it is tried (the memory as it stood when the build began)" \
	"! \"$KOPTMAKE\" -f c.kopt -t why screen looped/default/$k | grep -q '^  skill' && ! \"$KOPTMAKE\" -f c.kopt -t why screen other/default/$k | grep -q '^  skill'"
"$KOPTMAKE" -f c.kopt -B > out 2> err || { cat err >&2; exit 1; }
check "the next build of the same spec tries the skills of the last, its own" \
	"\"$KOPTMAKE\" -f c.kopt -t why screen looped/default/$k | grep -q '^  skill                  onepass=welford, 1\\.[0-9]*x in [12] of [12] tr'"
echo "1..$n"
