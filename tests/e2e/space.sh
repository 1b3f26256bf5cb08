#!/bin/sh
# tests/e2e/space.sh: the agents' implementation-space level. With the
# simulated worker (a TEST DOUBLE), "# sim: eager 2" makes a model run twice
# as fast eagerly as compiled, and so does any variant with ATen fallbacks.
# Where eager beats every declared variant, the build adds variant
# "aten-auto" (the hot kernels' ATen ops kept out of Inductor) after the
# profiles, races it with the rest and keeps it when it wins; where a
# declared variant beats eager, or the agents say auto_variants = false,
# nothing is added. "# sim: conv" puts half the device time in a cuDNN
# convolution, and variants with cudnn_benchmark run 1.25x faster: the
# build adds "cudnn-auto" unless a declared variant benchmarks already.
# "# sim: baseline wrong aten-auto" makes the added aten-auto change the
# results (wrong against eager, eager right by float64): twice as fast, it
# is never chosen.
# A second build does no worker work. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" space
mkdir models
# "# sim: kernels 2" with this text gives a reduction kernel (aten._softmax)
mk() { printf '# model %s\n%b# sim: kernels 2\nimport torch\n' "$1" "$2" > "models/$1.py"; }
mk pooled '# sim: eager 2\n'
mk tuned '# sim: eager 2\n# sim: fast autotune\n'
mk manual '# sim: eager 2\n'
mk plain ''
mk convnet '# sim: conv\n'
mk convbench '# sim: conv\n'
mk both '# sim: eager 2\n# sim: conv\n'
mk semantic '# sim: eager 2\n# sim: baseline wrong aten-auto\n'
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin }
agents manual { budget = 2  hot = 0.05  seed = 1  backend = builtin  auto_variants = false }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model pooled {
  source = "models/pooled.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model tuned {
  source = "models/tuned.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model manual { source = "models/manual.py"  agents = manual }
model plain { source = "models/plain.py" }
model convnet { source = "models/convnet.py" }
model convbench {
  source = "models/convbench.py"
  variant default { }
  variant bench { mode = "max-autotune-no-cudagraphs"  cudnn_benchmark = true }
}
model both { source = "models/both.py" }
model semantic { source = "models/semantic.py" }
target all = [pooled, tuned, manual, plain, convnet, convbench, both, semantic]
default all
SPEC

"$KOPTMAKE" > out 2> err || { cat err >&2; true; }
check "the build ends with the report" "[ -f kopt-out/all/report.json ]"
if ! grep -q 'kernels 2' models/pooled.py || ! grep -q 'aten._softmax' kopt-out/pooled/profile.json; then
	echo "# the simulated model has no reduction kernel: this test's premise fails" >&2
fi
check "eager beats both declared variants: the agents capture and profile aten-auto" \
	"grep -q '^capture pooled aten-auto' sim.log && grep -q '^profile pooled aten-auto' sim.log"
check "the race puts aten-auto beside the declared variants" \
	"grep -q '\"name\": \"aten-auto\"' kopt-out/pooled/substitutions.json"
check "... and aten-auto's fallbacks are the hot kernels' distinctive ops" \
	"grep -q 'aten._softmax' kopt-out/pooled/substitutions.json && ! grep -q 'aten.add' kopt-out/pooled/substitutions.json"
sp=$(sed '/^## /q' kopt-out/all/report.md | awk -F'|' '$2 ~ /^ pooled $/ { gsub(/ /, "", $7); print $7 }')
check "the report credits aten-auto's 2x ($sp)" "case '$sp' in 1.9*|2.*) true ;; *) false ;; esac"
check "the report says the agents added it" "grep -q '| pooled |.*the agents added variant .aten-auto.' kopt-out/all/report.md"
check "a declared variant that beats eager: nothing added" "! grep -q '^capture tuned aten-auto' sim.log"
check "... and the report names that variant" "grep -q '| tuned |.*variant .autotune. beats eager' kopt-out/all/report.md"
check "auto_variants = false: nothing added, the report suggests the variant to declare" \
	"! grep -q '^capture manual aten-auto' sim.log && grep -q '| manual |.*try .variant aten' kopt-out/all/report.md"
check "eager not faster: nothing added" "! grep -q '^capture plain aten-auto' sim.log"
check "cuDNN calls half the device time: the agents capture and profile cudnn-auto" \
	"grep -q '^capture convnet cudnn-auto' sim.log && grep -q '^profile convnet cudnn-auto' sim.log"
check "... and its 1.25x wins the race" "grep -q '\"name\": \"cudnn-auto\"' kopt-out/convnet/substitutions.json && grep -q '\"cudnn_benchmark\": true' kopt-out/convnet/substitutions.json"
# (its other options differ from the first variant's, so that what is not
# added is not merely a copy of a declared variant left out)
check "a declared variant that benchmarks cuDNN already (in another mode): nothing added" "! grep -q '^capture convbench cudnn-auto' sim.log && grep -q '^capture convbench bench' sim.log"
check "both reasons: both variants, raced together" \
	"grep -q '^capture both aten-auto' sim.log && grep -q '^capture both cudnn-auto' sim.log && grep -q '^| aten-auto |' kopt-out/both/report.md && grep -q '^| cudnn-auto |' kopt-out/both/report.md"
check "an aten-auto that changes the results: added and checked against eager" \
	"grep -q '^profile semantic aten-auto' sim.log && grep -q '^| aten-auto | wrong |' kopt-out/semantic/report.md"
check "... and never chosen, twice as fast as it is" \
	"! grep -q '\"name\": \"aten-auto\"' kopt-out/semantic/substitutions.json 2>/dev/null && ! grep -q '^verify semantic aten-auto' sim.log"
check "no cuDNN calls: no cudnn-auto" "! grep -q '^capture plain cudnn-auto' sim.log && ! grep -q '^capture pooled cudnn-auto' sim.log"
: > sim.log
"$KOPTMAKE" > out2 2> err2 || { cat err2 >&2; true; }
check "a second build does no worker work" "[ ! -s sim.log ] && grep -q 'nothing to do' out2 err2"
check "-n after it plans nothing either" "\"$KOPTMAKE\" -n > out3 2>&1 && grep -q '^0 steps would run' out3"
echo "1..$n"
