#!/bin/sh
# tests/e2e/shapes.sh: a model served at several shapes (kopt(5), shape;
# rules/shapes.c, rules/deploy.c). With the simulated worker (a TEST
# DOUBLE: a model's shape scales its kernels' size hints, its time and its
# input): model m at batch sizes 1, 8 and 64, in two variants. Every
# (variant, shape) is captured and profiled; the hot kernels are searched
# at b1 alone, and b8 and b64 take b1's winners ("from" its chain), checked
# in their own stitches; at b64 ("# sim: slower batch_size=64") those
# winners are slower than the shape's own kernels and are left off, with
# the reason. The deploy step joins the shapes into kopt-out/m/
# (substitutions.json with each shape's inputs, report.md with each
# shape's speedups and their geomean), which kopt.backend dispatches on
# (tests/runtime/test_deploy_shapes.py, on this folder); report.json has a
# row per shape and the model's geomean. Adding a fourth shape runs that
# shape's steps, the deploy and the report, and no other. A shape the
# model cannot take fails its capture with the model's own error (with
# -k: the deployment leaves it out and says why). A kernel left alone at
# a later shape (its bound within gamma there) takes no earlier shape's
# winner. Without a Python to read the model files, a warning. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" shapes
mkdir models
printf '# model m\n# sim: kernels 2\n# sim: pointwise\n# sim: speedup 1.3\n# sim: steady\n# sim: slower batch_size=64\nimport torch\nbatch_size = 16\ndim = 4096\n' > models/m.py
# the head of every spec here: a simulated device, no screen, strict gates
spec_head() { # BUDGET
	printf '%s\n' "device sim { gpus = 1  timeout = 30s }" \
		"agents default { budget = $1  hot = 0.05  seed = 1  screen = 0  auto_variants = false }" \
		"gates strict { seeds = 2  gamma = 1.03  repeats = 5 }" \
		"defaults { device = sim  agents = default  gates = strict }"
}
spec() { # SHAPES...
	{
		spec_head 2
		cat <<'SPEC'
model m {
  source = "models/m.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
SPEC
		for b in "$@"; do echo "  shape b$b { batch_size = $b }"; done
		echo "}"
		echo "target all = [m]"
	} > test.kopt
}
spec 1 8 64

"$KOPTMAKE" > out 2> err || { cat err >&2; true; }
check "the build ends with the report and the deployment" "[ -f kopt-out/all/report.json ] && [ -f kopt-out/m/substitutions.json ]"
ran() { grep -c "^\[[0-9]*/~*[0-9]*\] $1" out || true; }
check "every variant is captured and profiled at every shape ($(ran capture) captures, $(ran profile) profiles)" \
	"[ $(ran capture) -eq 6 ] && [ $(ran profile) -eq 6 ] && [ $(ran 'capture m@b8/autotune') -eq 1 ]"
check "the hot kernels are searched at the first shape alone ($(ran 'verify m@b1/') verifies at b1, $(ran 'verify m@b8/') at b8, $(ran 'verify m@b64/') at b64)" \
	"[ $(ran 'verify m@b1/') -gt 0 ] && [ $(ran 'verify m@b8/') -eq 0 ] && [ $(ran 'verify m@b64/') -eq 0 ]"
check "each shape has its stitch, and the model its deploy step" \
	"[ $(ran 'stitch m@b1') -eq 1 ] && [ $(ran 'stitch m@b64') -eq 1 ] && [ $(ran 'deploy m') -eq 1 ]"
from() { python3 -c "
import json
k = json.load(open('kopt-out/m/$1/substitutions.json'))['kernels']
print(len(k), sorted({e.get('from', '-') for e in k.values()}))"; }
check "b8 takes b1's winners, from its chain ($(from b8))" \
	"from b8 | grep -q \"^[12] \\['m@b1/default/triton_poi_fused_add_mul_[01]'\""
check "b64's own kernels beat them: none is used there ($(from b64))" "[ \"\$(from b64)\" = '0 []' ]"
check "b64's report says why" "grep -q 'is slower at this shape: 0.800x' kopt-out/m/b64/report.md"
check "each shape's folder has its profiles, output code and report" \
	"[ -f kopt-out/m/b8/profile.md ] && [ -f kopt-out/m/b8/profile-autotune.json ] && [ -f kopt-out/m/b8/output_code.py ] && head -1 kopt-out/m/b8/report.md | grep -qx '# m@b8'"
check "the joined table: each shape's names, inputs and winners" "python3 -c \"
import json
d = json.load(open('kopt-out/m/substitutions.json'))
assert d['model'] == 'm' and d['failed'] == [], d
s = d['shapes']
assert [x['shape'] for x in s] == ['b1', 'b8', 'b64'], s
assert [x['set'] for x in s] == [{'batch_size': 1}, {'batch_size': 8}, {'batch_size': 64}]
assert [x['inputs'] for x in s] == [[{'shape': [b, 4096], 'dtype': 'float32'}] for b in (1, 8, 64)]
assert s[0]['kernels'] and s[0]['variant']['name'] and not s[2]['kernels']
\""
check "kopt-out/m is sealed as a stitch's folder is" "[ -f kopt-out/m/seal.json ] && [ -f kopt-out/m/b8/seal.json ]"
"$top_srcdir/tests/runtime/deploy_shapes.sh" "$PWD/kopt-out/m" > dispatch.tap 2>&1 || true
check "kopt.backend dispatches on the joined table ($(grep -c '^ok' dispatch.tap) of $(grep -c '^\(not \)\{0,1\}ok' dispatch.tap))" \
	"! grep -q '^not ok' dispatch.tap && grep -q '^ok 16' dispatch.tap"
check "report.json: a row per shape and the model's geomean over its shapes" "python3 -c \"
import json, math
d = json.load(open('kopt-out/all/report.json'))
rows = [m for m in d['models'] if m.get('of') == 'm']
assert [r['model'] for r in rows] == ['m@b1', 'm@b8', 'm@b64'] and [r['shape'] for r in rows] == ['b1', 'b8', 'b64']
g = math.exp(sum(math.log(r['speedup']) for r in rows) / 3)
ga = math.exp(sum(math.log(r['speedup_vs_max_autotune']) for r in rows) / 3)
s, = d['shapes']
assert s['model'] == 'm' and s['shapes'] == ['b1', 'b8', 'b64']
assert abs(s['geomean_speedup'] - g) < 1e-9 and abs(s['geomean_speedup_vs_max_autotune'] - ga) < 1e-9, (s, g, ga)
assert rows[0]['speedup'] > 1.03 and abs(rows[2]['speedup'] - 1) < 1e-9
\""
check "the deployment's report: each shape's times (baseline, max-autotune, optimized) and both speedups" \
	"grep -q '^| b1 | 1x4096 float32 | default | 145\\.168 | 145\\.168 | 119\\.708 | 1\\.213x | 1\\.213x | optimized |\$' kopt-out/m/report.md &&
	 grep -q '^| b64 | 64x4096 float32 | default | 362\\.920 | 362\\.920 | 362\\.920 | 1\\.000x | 1\\.000x | baseline |\$' kopt-out/m/report.md"
check "report.md's Shapes section, and the deployment's report with each shape and the geomean" \
	"grep -q '^| m | b1 .*, b8 .*, b64 ' kopt-out/all/report.md && grep -q '^| b8 | 8x4096 float32 | ' kopt-out/m/report.md && grep -q '^Geometric mean speedup over the 3 shapes with one: ' kopt-out/m/report.md"

"$KOPTMAKE" > out 2> err || true
check "a null build runs nothing" "grep -q 'nothing to do' out"

# a fourth shape: its steps, the deployment's and the report's, no other
spec 1 8 64 256
want='capture m@b256/autotune,capture m@b256/default,deploy m,profile m@b256/autotune,profile m@b256/default,report all,stitch m@b256,'
dry=$("$KOPTMAKE" -n 2>/dev/null | grep -v 'would run' | sort | tr '\n' ',')
check "-n lists a fourth shape's steps, the deploy and the report ($dry)" "[ '$dry' = '$want' ]"
: > sim.log
"$KOPTMAKE" > out 2> err || { cat err >&2; true; }
steps=$(sed -n 's/^\[[0-9]*\/~*[0-9]*\] \([a-z]*\) \([^ ]*\)$/\1 \2/p' out | sort | tr '\n' ',')
check "a fourth shape reruns only its steps, the deploy and the report ($steps)" "[ '$steps' = '$want' ]"
check "... and its worker requests: its captures, profiles and stitch ($(cut -d' ' -f1 sim.log | sort | uniq -c | tr -s ' ' | tr '\n' ','))" \
	"[ \$(grep -c '^capture ' sim.log) -eq 2 ] && [ \$(grep -c '^profile ' sim.log) -eq 2 ] && ! grep -q '^verify ' sim.log"
check "b256 takes b1's winners too" "from b256 | grep -q \"^[12] \\['m@b1/default/\""
check "the deployment serves the four" "python3 -c \"
import json
assert [x['shape'] for x in json.load(open('kopt-out/m/substitutions.json'))['shapes']] == ['b1', 'b8', 'b64', 'b256']
\""

# a shape's values changed: that shape's steps again (the later shapes'
# stitches wait for its stitch, and key on nothing of it)
sed 's/shape b8 { batch_size = 8 }/shape b8 { batch_size = 9 }/' test.kopt > t && mv t test.kopt
want='capture m@b8/autotune,capture m@b8/default,deploy m,profile m@b8/autotune,profile m@b8/default,report all,stitch m@b8,'
dry=$("$KOPTMAKE" -n 2>/dev/null | grep -v 'would run' | sort | tr '\n' ',')
"$KOPTMAKE" > out 2> err || { cat err >&2; true; }
steps=$(sed -n 's/^\[[0-9]*\/~*[0-9]*\] \([a-z]*\) \([^ ]*\)$/\1 \2/p' out | sort | tr '\n' ',')
check "a shape's new values rerun its steps alone, as -n said ($steps)" "[ '$steps' = '$want' ] && [ '$dry' = '$want' ]"

# a shape the model cannot take: the model's own error, at its capture
mkdir r
printf '# model r\n# sim: kernels 1\n# sim: reject batch_size=100000\nimport torch\nbatch_size = 16\n' > r/r.py
{ spec_head 1; cat <<'SPEC'; } > r/r.kopt
model r { source = "r.py"  shape b2 { batch_size = 2 }  shape huge { batch_size = 100000 } }
model q { source = "r.py"  shape huge { batch_size = 100000 } }
target all = [r, q]
SPEC
st=0
(cd r && "$KOPTMAKE" > ../out 2> ../err) || st=$?
check "a shape the model cannot take fails its capture with the model's own error (exit $st)" \
	"[ $st -ne 0 ] && grep -q 'capture r@huge/default.*the model cannot take the shape batch_size=100000' err"
st=0
(cd r && "$KOPTMAKE" -k > ../out 2> ../err) || st=$?
check "with -k, the deployment serves the other shape and says why the failed one is left out" "python3 -c \"
import json
d = json.load(open('r/kopt-out/r/substitutions.json'))
assert [x['shape'] for x in d['shapes']] == ['b2'], d
assert d['failed'][0]['shape'] == 'huge' and 'cannot take' in d['failed'][0]['reason'], d
\" && grep -q '^| huge | - | .* | failed |' r/kopt-out/r/report.md"
check "a model none of whose shapes was built has no deployment, and says so" \
	"grep -q 'deploy q.*no shape of q was built' err && [ ! -f r/kopt-out/q/substitutions.json ]"

# a kernel left alone at a later shape takes no earlier shape's winner: at
# b64 (first) the kernel is far from its bound and searched; at b1 its
# bound is within gamma of its time (one kernel, 2/3 of 0.95 of 25.6 us:
# 16.2 us, its 64 MiB at 4300 GB/s 15.6 us, 2.4% of the model to win),
# so it is left alone there, and b1 keeps its own kernel
mkdir lone
printf '# model m\n# sim: kernels 1\n# sim: pointwise\n# sim: speedup 1.3\n# sim: steady\n# sim: time 25600\nimport torch\nbatch_size = 16\n' > lone/m.py
{ spec_head 2; cat <<'SPEC'; } > lone/m.kopt
model m { source = "m.py"  shape b64 { batch_size = 64 }  shape b1 { batch_size = 1 } }
target all = [m]
SPEC
st=0
(cd lone && "$KOPTMAKE" > ../out 2> ../err) || st=$?
lone() { python3 -c "
import json
k = json.load(open('lone/kopt-out/m/$1/substitutions.json'))['kernels']
print(len(k), sorted({e.get('from', '-') for e in k.values()}))"; }
check "a kernel left alone at a later shape takes no earlier shape's winner (exit $st; b64: $(lone b64), b1: $(lone b1))" \
	"[ $st -eq 0 ] && [ \"\$(lone b64)\" = \"1 ['-']\" ] && [ \"\$(lone b1)\" = '0 []' ]"
check "... and b1's report says why it is left alone" \
	"grep -q '^- triton_poi_fused_add_mul_0 (variant default): left alone: even at its bound it would make the model at most 2.4% faster' lone/kopt-out/m/b1/report.md"

# no Python to read the model files: the names go unchecked, said once
st=0
KOPT_PYTHON=/nonexistent/python3 "$KOPTMAKE" -t check > out 2> err || st=$?
check "without a Python the check warns and passes (exit $st)" \
	"[ $st -eq 0 ] && grep -q \"warning: the names that shapes set are not checked: Python (/nonexistent/python3) cannot run it\" err"
echo "1..$n"
