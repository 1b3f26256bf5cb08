#!/bin/sh
# tests/e2e/space-search.sh: the implementation-space search (agents
# space_variants, rules/space.c; issue 22 item 4) and the vendor probe's
# cuDNN finding deployed (item 2), with the simulated worker (a TEST
# DOUBLE). Each model declares a default and a max-autotune-no-cudagraphs
# variant; the search adds variants of Inductor's options on top of the
# latter, as the first variant's profile facts call for ("# sim: conv",
# "# sim: params", "# sim: reductions"), at most space_variants of them,
# each with its capture, profile and check against eager, raced with the
# rest. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" space-search
mkdir models
mk() { printf '# model %s\n%b# sim: kernels 2\n# sim: steady\nimport torch\n' "$1" "$2" > "models/$1.py"; }
# a convnet with parameters and reductions: every dimension applies; the
# cd-radius-2 variant runs 1.5x faster, channels-last's compiled code is
# wrong against eager
mk convnet '# sim: conv\n# sim: params 4096\n# sim: reductions\n# sim: fast autotune-cd-radius-2 1.5\n# sim: baseline wrong autotune-channels-last\n'
# the same, where no-split-reductions does not compile
mk brittle '# sim: conv\n# sim: params 4096\n# sim: reductions\n# sim: nocompile autotune-no-split-reductions\n'
# no convolution, no parameters, no reduction kernel
mk pointwise '# sim: pointwise\n'
# the bound: two variants at most
mk bounded '# sim: conv\n# sim: params 4096\n# sim: reductions\n'
# the probe finds a cuDNN algorithm 1.4x faster than torch's pick in a call
# that takes a tenth of the device time
mk probed '# sim: cudnn-left 1.4\n'
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents search { budget = 1  hot = 0.05  seed = 1  backend = builtin  space_variants = 6 }
agents two { budget = 1  hot = 0.05  seed = 1  backend = builtin  space_variants = 2 }
agents none { budget = 1  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 3  atol = 1e-4  rtol = 1e-4  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = search  gates = strict }
model convnet {
  source = "models/convnet.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs"  options = { "max_fusion_size" = 32 } }
}
model pointwise {
  source = "models/pointwise.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model bounded { source = "models/bounded.py"  agents = two }
model probed { source = "models/probed.py"  agents = none }
model brittle { source = "models/brittle.py" }
target all = [convnet, pointwise, bounded, probed, brittle]
default all
SPEC

rc=0
"$KOPTMAKE" > out 2> err || rc=$?
check "the build ends with the report (exit $rc)" "[ -f kopt-out/all/report.json ]"
for v in autotune-freezing autotune-channels-last autotune-cd-radius-2 autotune-no-persistent-reductions autotune-no-split-reductions autotune-no-epilogue-fusion; do
	check "convnet: the search captures and profiles $v" "grep -q '^capture convnet $v\$' sim.log && grep -q '^profile convnet $v\$' sim.log"
done
check "brittle: a variant that does not compile is left out of the race with its reason, the model built" \
	"grep -q '^| autotune-no-split-reductions | not run |.*capture failed: .*the compile of this variant failed' kopt-out/brittle/report.md && grep -q '^| brittle |' kopt-out/all/report.md"
check "... the build says so as a warning and succeeds" \
	"[ $rc -eq 0 ] && grep -q 'warning: capture brittle/autotune-no-split-reductions failed (optional' err && grep -q '1 optional failed' out"
check "each variant is the declared max-autotune variant plus its option" \
	"grep -q '^| autotune-freezing | max-autotune-no-cudagraphs, max_fusion_size = 32, freezing = true (added by the agents) |' kopt-out/convnet/report.md"
check "channels-last folds the weights too (the model has parameters)" \
	"grep -q '^| autotune-channels-last | max-autotune-no-cudagraphs, max_fusion_size = 32, force_layout_optimization = true, layout_optimization = true, freezing = true (added' kopt-out/convnet/report.md"
check "coordinate descent at radius 2" \
	"grep -q '^Compiled with max-autotune-no-cudagraphs, max_fusion_size = 32, coordinate_descent_tuning = true, coordinate_descent_search_radius = 2\\.' kopt-out/convnet/profile-autotune-cd-radius-2.md"
check "the options reach the worker's requests" \
	"grep -q '\"coordinate_descent_search_radius\": 2' kopt-out/convnet/substitutions.json"
check "the race picks the 1.5x variant" "grep -q '\"name\": \"autotune-cd-radius-2\"' kopt-out/convnet/substitutions.json"
check "the wrong variant is checked against eager and excluded" \
	"grep -q '^| autotune-channels-last | wrong |' kopt-out/convnet/report.md && grep -q '^| autotune-channels-last | not run |' kopt-out/convnet/report.md"
"$KOPTMAKE" -t why stitch convnet > why 2>&1 || true
check "-t why gives each variant's check" "grep -q 'variant autotune-channels-last: compiled baseline wrong' why && grep -q 'variant autotune-freezing: compiled baseline agrees' why"
check "-t why says what each variant is" "grep -q 'variant autotune-cd-radius-2 is max-autotune-no-cudagraphs, max_fusion_size = 32, coordinate_descent_tuning = true, coordinate_descent_search_radius = 2' why"
check "pointwise: no convolution, no layout variant; no parameters, no freezing; no reduction, no reduction switch" \
	"! grep -q '^capture pointwise autotune-channels-last' sim.log && ! grep -q '^capture pointwise autotune-freezing' sim.log && ! grep -q '^capture pointwise autotune-no-persistent' sim.log"
check "... but coordinate descent and epilogue fusion (a GEMM) are tried" \
	"grep -q '^capture pointwise autotune-cd-radius-2\$' sim.log && grep -q '^capture pointwise autotune-no-epilogue-fusion\$' sim.log"
check "... on a plain max-autotune-no-cudagraphs" \
	"grep -q '^| autotune-cd-radius-2 | max-autotune-no-cudagraphs, coordinate_descent_tuning = true, coordinate_descent_search_radius = 2 (added' kopt-out/pointwise/report.md"
check "space_variants = 2: two variants, the table's first two that apply" \
	"[ \$(grep -c '^capture bounded autotune-' sim.log) -eq 2 ] && grep -q '^capture bounded autotune-freezing\$' sim.log && grep -q '^capture bounded autotune-channels-last\$' sim.log"
check "... and, with no declared max-autotune variant, on plain max-autotune-no-cudagraphs" \
	"grep -q '^| autotune-freezing | max-autotune-no-cudagraphs, freezing = true (added' kopt-out/bounded/report.md"
check "space_variants unset: no search" "! grep -q '^capture probed autotune-' sim.log"
check "the probe's faster cuDNN algorithm (a tenth of the time): cudnn-auto is added" \
	"grep -q '^capture probed cudnn-auto\$' sim.log"
check "... and wins with cudnn.benchmark" "grep -q '\"cudnn_benchmark\": true' kopt-out/probed/substitutions.json"
: > sim.log
"$KOPTMAKE" > out2 2> err2 || true
check "a second build does no worker work but the failed compile's" "! grep -v 'autotune-no-split-reductions' sim.log | grep -q ."

# space_variants at the most kopt(5) allows (21): every variant the facts
# single out, however many, on a model of its own
mkdir wide && cd wide && mkdir models
printf '# model wide\n# sim: kernels 2\n# sim: steady\n# sim: conv\n# sim: gemm\n# sim: params 4096\n# sim: reductions\nimport torch\n' > models/wide.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents most { budget = 1  hot = 0.05  seed = 1  backend = builtin  space_variants = 21 }
gates strict { seeds = 3  atol = 1e-4  rtol = 1e-4  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = most  gates = strict }
model wide { source = "models/wide.py" }
target all = [wide]
default all
SPEC
rc=0
: > ../sim.log
"$KOPTMAKE" > out 2> err || rc=$?
nw=$(grep -c '^capture wide autotune-' ../sim.log || true)
check "space_variants = 21: the build succeeds with all $nw variants the facts name (more than 8)" \
	"[ $rc -eq 0 ] && [ $nw -gt 8 ] && [ -f kopt-out/all/report.json ] && ! grep -q fatal err"
cd ..
echo "1..$n"
