#!/bin/sh
# tests/e2e/baseline.sh: nothing unverified is deployed (issue 17). Each
# compile variant's code is checked against eager at profile time; with the
# simulated worker (a TEST DOUBLE), "# sim: baseline S [VARIANT]" makes that
# check read agrees, accurate, wrong or ill. The three cases of the issue:
# a right compile changes nothing; a wrong one is reported in its own
# section with no speedup claimed and no candidates; an ill-conditioned
# model is reported, not optimized. A wrong second variant is never chosen,
# however fast. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" baseline
mkdir models
printf '# model right\n# sim: kernels 2\nimport torch\n' > models/right.py
printf '# model reordered\n# sim: kernels 2\n# sim: baseline accurate\nimport torch\n' > models/reordered.py
printf '# model floor\n# sim: kernels 2\n# sim: baseline wrong\nimport torch\n' > models/floor.py
printf '# model ssm\n# sim: kernels 2\n# sim: baseline ill\nimport torch\n' > models/ssm.py
printf '# model twov\n# sim: kernels 1\n# sim: baseline wrong autotune\n# sim: fast autotune 3\nimport torch\n' > models/twov.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model right { source = "models/right.py" }
model reordered { source = "models/reordered.py" }
model floor { source = "models/floor.py" }
model ssm { source = "models/ssm.py" }
model twov {
  source = "models/twov.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
target all = [right, reordered, floor, ssm, twov]
default all
SPEC

rc=0
"$KOPTMAKE" > out 2> err || rc=$?
check "the build succeeds (exit $rc)" "[ $rc -eq 0 ]"
verdict() { python3 -c "import json,sys; m={x['model']: x for x in json.load(open('kopt-out/all/report.json'))['models']}; print(m['$1']['verdict'], m['$1']['speedup'])"; }
check "a right compile: optimized as before ($(verdict right))" "verdict right | grep -q '^optimized\|^baseline'"
check "differs from eager but as accurate: still optimized ($(verdict reordered))" \
	"grep -q '^verify reordered' sim.log && ! verdict reordered | grep -q 'wrong\|ill'"
check "compile wrong, eager right: wrong-baseline, no speedup ($(verdict floor))" "[ \"\$(verdict floor)\" = 'wrong-baseline None' ]"
check "ill-conditioned: reported, no speedup ($(verdict ssm))" "[ \"\$(verdict ssm)\" = 'ill-conditioned None' ]"
dev() { python3 -c "import json,sys; m={x['model']: x for x in json.load(open('kopt-out/all/report.json'))['models']}; print(m['$1']['device_speedup'], m['$1']['device_speedup_vs_max_autotune'])"; }
check "... nor any speedup in device time ($(dev floor); $(dev ssm))" "[ \"\$(dev floor)\" = 'None None' ] && [ \"\$(dev ssm)\" = 'None None' ]"
check "no candidate is proposed or verified for them" "! grep -q '^verify floor\|^verify ssm' sim.log"
check "nor is a stitch measured for them" "! grep -q '^stitch floor\|^stitch ssm' sim.log"
check "report.md has its own section, naming both models" \
	"sed -n '/^## Compiled baseline disagrees with eager/,/^## /p' kopt-out/all/report.md | grep -q '| floor | wrong-baseline |' &&
	 sed -n '/^## Compiled baseline disagrees with eager/,/^## /p' kopt-out/all/report.md | grep -q '| ssm | ill-conditioned |'"
check "the model table shows no speedup for them" "grep '^| floor |' kopt-out/all/report.md | grep -q '| - | - | - |'"
sp() { python3 -c "import json; m={x['model']: x for x in json.load(open('kopt-out/all/report.json'))['models']}; print(m['$1']['speedup'])"; }
geo=$(python3 -c "
import json, math
d = json.load(open('kopt-out/all/report.json'))
s = [m['speedup'] for m in d['models'] if m['speedup']]
print('%.6f %.6f' % (math.exp(sum(map(math.log, s)) / len(s)), d['geomean_speedup']))")
check "the geomean is over the models with a claim only ($geo)" "[ \"\$(echo $geo | cut -d' ' -f1)\" = \"\$(echo $geo | cut -d' ' -f2)\" ]"
check "the geomean line counts the models with a claim and says why two have none" \
	"grep -qx 'Geometric mean speedup: [0-9.]*x over 3 models\\.' kopt-out/all/report.md && grep -q '^2 models without one: their compiled baseline failed' kopt-out/all/report.md"
check "floor's own report says why" "grep -q 'Not optimized, no speedup claimed: compiled baseline disagrees with eager' kopt-out/floor/report.md"
check "its profile says so too" "grep -q 'this variant is not optimized and claims no speedup' kopt-out/floor/profile.md"
check "a wrong second variant is not chosen, 3x faster as it is ($(grep -o '\"variant\": {[^}]*\"name\": \"[a-z]*\"' kopt-out/twov/substitutions.json | grep -o 'name\": \"[a-z]*' | head -1))" \
	"grep -q '\"name\": \"default\"' kopt-out/twov/substitutions.json"
check "and gets no candidates" "! grep -q '^verify twov autotune' sim.log && grep -q '^verify twov default' sim.log"
"$KOPTMAKE" -t why stitch twov > why 2>&1 || true
check "-t why stitch shows each variant's check" \
	"grep -q 'variant default: compiled baseline agrees' why && grep -q 'variant autotune: compiled baseline wrong' why"
check "the model report has the variants' checks" "grep -q '| autotune | wrong | compiled baseline disagrees' kopt-out/twov/report.md"
rc=0
"$KOPTMAKE" > out2 2> err2 || rc=$?
check "a null build runs nothing" "[ $rc -eq 0 ] && grep -q 'nothing to do' out2 err2"
# the check follows the tolerances: a looser atol reruns the profiles
sed -i 's/atol = 1e-4  rtol = 1e-4  fp64/atol = 1e-3  rtol = 1e-4  fp64/' test.kopt
"$KOPTMAKE" -n > n3 2>&1 || true
check "a new atol reruns the profiles (the check's tolerances)" "grep -q '^profile floor' n3"
sed -i 's/atol = 1e-3  rtol = 1e-4  fp64/atol = 1e-4  rtol = 1e-4  fp64/; s/gamma = 1.03/gamma = 1.05/' test.kopt
"$KOPTMAKE" -n > n4 2>&1 || true
check "a new gamma does not" "! grep -q '^profile ' n4"
echo "1..$n"
