#!/bin/sh
# tests/e2e/space-names.sh: a variant the spec declares keeps its name from
# the agents. Each of the agents' own variants (aten-auto, cudnn-auto and
# the space search's autotune-*) is added only where the spec declares no
# variant of that name, wherever the spec declares it: first or later. With
# the simulated worker (a TEST DOUBLE): "# sim: eager 2" calls for
# aten-auto, "# sim: conv" for cudnn-auto, and conv, parameters and
# reductions for every dimension of the search. Each declared name is
# captured once, compiled as declared, and not said to be the agents'.
# Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" space-names
mkdir models
mk() { printf '# model %s\n%b# sim: kernels 2\n# sim: steady\nimport torch\n' "$1" "$2" > "models/$1.py"; }
mk atenfirst '# sim: eager 2\n'
mk atenlater '# sim: eager 2\n'
mk cudnnfirst '# sim: conv\n'
mk cudnnlater '# sim: conv\n'
mk searchfirst '# sim: conv\n# sim: params 4096\n# sim: reductions\n'
mk searchlater '# sim: conv\n# sim: params 4096\n# sim: reductions\n'
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents auto { budget = 1  hot = 0.05  seed = 1  backend = builtin }
agents search { budget = 1  hot = 0.05  seed = 1  backend = builtin  space_variants = 6 }
gates strict { seeds = 3  atol = 1e-4  rtol = 1e-4  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = auto  gates = strict }
model atenfirst {
  source = "models/atenfirst.py"
  variant aten-auto { options = { "max_fusion_size" = 16 } }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model atenlater {
  source = "models/atenlater.py"
  variant default { }
  variant aten-auto { mode = "max-autotune-no-cudagraphs" }
}
model cudnnfirst {
  source = "models/cudnnfirst.py"
  variant cudnn-auto { options = { "max_fusion_size" = 16 } }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model cudnnlater {
  source = "models/cudnnlater.py"
  variant default { }
  variant cudnn-auto { mode = "max-autotune-no-cudagraphs" }
}
model searchfirst {
  source = "models/searchfirst.py"  agents = search
  variant autotune-freezing { mode = "max-autotune-no-cudagraphs"  options = { "max_fusion_size" = 16 } }
  variant default { }
}
model searchlater {
  source = "models/searchlater.py"  agents = search
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
  variant autotune-cd-radius-2 { mode = "max-autotune-no-cudagraphs"  options = { "max_fusion_size" = 16 } }
}
target all = [atenfirst, atenlater, cudnnfirst, cudnnlater, searchfirst, searchlater]
default all
SPEC

rc=0
"$KOPTMAKE" > out 2> err || rc=$?
check "the build succeeds with its report (exit $rc)" "[ $rc -eq 0 ] && [ -f kopt-out/all/report.json ]"
# the "compiled with" table's row (two columns) of variant $2 says $3,
# and no row says the agents added it
declared() { grep -E "^\| $2 \| [^|]*\|\$" kopt-out/$1/report.md | grep -q "$3" && ! grep -q "^| $2 | .*(added by the agents)" kopt-out/$1/report.md; }
for m in atenfirst:aten-auto atenlater:aten-auto cudnnfirst:cudnn-auto cudnnlater:cudnn-auto searchfirst:autotune-freezing searchlater:autotune-cd-radius-2; do
	model=${m%%:*} name=${m#*:}
	check "$model: the declared $name is captured once" "[ \"\$(grep -c '^capture $model $name\$' sim.log)\" -eq 1 ]"
done
check "atenfirst: the declared aten-auto is compiled as declared, no ATen fallback added" \
	"declared atenfirst aten-auto 'max_fusion_size = 16' && ! grep -q '^| aten-auto | .*ATen' kopt-out/atenfirst/report.md"
check "atenlater: the declared aten-auto is the declared max-autotune variant" \
	"declared atenlater aten-auto 'max-autotune-no-cudagraphs'"
check "cudnnfirst: the declared cudnn-auto is not benchmarked by the agents" \
	"declared cudnnfirst cudnn-auto 'max_fusion_size = 16' && ! grep -q '\"cudnn_benchmark\": true' kopt-out/cudnnfirst/substitutions.json"
check "cudnnlater: the declared cudnn-auto is the declared max-autotune variant" \
	"declared cudnnlater cudnn-auto 'max-autotune-no-cudagraphs' && ! grep -q '\"cudnn_benchmark\": true' kopt-out/cudnnlater/substitutions.json"
check "searchfirst: the declared autotune-freezing keeps its options, without freezing" \
	"declared searchfirst autotune-freezing 'max_fusion_size = 16' && ! grep '^| autotune-freezing | ' kopt-out/searchfirst/report.md | grep -q 'freezing = true'"
check "... and the search adds its other variants" "grep -q '^capture searchfirst autotune-cd-radius-2\$' sim.log"
check "searchlater: the declared autotune-cd-radius-2 keeps its options" \
	"declared searchlater autotune-cd-radius-2 'max_fusion_size = 16' && ! grep '^| autotune-cd-radius-2 | ' kopt-out/searchlater/report.md | grep -q coordinate_descent"
check "... and the search adds its other variants" "grep -q '^capture searchlater autotune-freezing\$' sim.log"
: > sim.log
"$KOPTMAKE" > out2 2> err2 || true
check "a second build does no worker work" "! grep -q . sim.log"
echo "1..$n"
