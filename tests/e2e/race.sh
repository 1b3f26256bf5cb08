#!/bin/sh
# tests/e2e/race.sh: the choice between compile variants rests on times
# measured side by side. With the simulated worker (a TEST DOUBLE), the
# default variant's stitch of model "drifty" reads 1.3x too high, as a
# separate measurement can; the race reads both variants at the same time.
# Both variants compile to the same code, so the first one must stay. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" race
mkdir models
printf '# model drifty\n# sim: drift default\nimport torch\n' > models/drifty.py
printf '# model steady\nimport torch\n' > models/steady.py
printf '# model noracer\n# sim: softfail race\nimport torch\n' > models/noracer.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 4  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model drifty {
  source = "models/drifty.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model steady { source = "models/steady.py" }
model noracer {
  source = "models/noracer.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
target all = [drifty, steady, noracer]
default all
SPEC

"$KOPTMAKE" > out 2> err || { cat err >&2; true; }
check "the build ends with the report" "[ -f kopt-out/all/report.json ]"
check "one race per model with two variants" "[ \$(grep -c '^race ' sim.log) -eq 2 ] && grep -q '^race drifty' sim.log"
check "the drifting stitch does not hand the choice to the second variant" \
	"grep -q '\"variant\": \"default\"' kopt-out/drifty/substitutions.json || grep -q '\"name\": \"default\"' kopt-out/drifty/substitutions.json"
base_of() { awk -F'|' -v v="$1" '$2 ~ "^ "v" $" { gsub(/ /, "", $4); print $4 }' kopt-out/drifty/report.md; }
check "both variants in the default's terms: equal baselines ($(base_of default), $(base_of autotune))" \
	"[ -n \"\$(base_of default)\" ] && [ \"\$(base_of default)\" = \"\$(base_of autotune)\" ]"
check "a race that fails leaves the stitch standing, and its report says why" \
	"grep -q 'could not be raced side by side (simulated: out of memory' kopt-out/noracer/report.md"
check "a raced model's report says its times are in the first variant's terms" \
	"grep -q 'raced side by side' kopt-out/drifty/report.md"
# A host-side artifact (a swapped kernel object launched more cheaply than
# Inductor's own) must not reach the report: the same spec again, in a
# fresh folder, with the candidates' event times 8% low on the host's side.
mkdir skewed && cp -r models test.kopt skewed/
(cd skewed && KOPT_SIM_HOSTSKEW=1 KOPT_SIM_LOG= "$KOPTMAKE" > out 2> err) || { cat skewed/err >&2; true; }
sp_of() { sed '/^## /q' "$1/kopt-out/all/report.md" | awk -F'|' -v m="$2" '$2 ~ "^ "m" $" { gsub(/ /, "", $7); print $7 }'; }
check "a host-side skew leaves the report's speedup as it was (steady: $(sp_of . steady), skewed $(sp_of skewed steady))" \
	"[ -n \"\$(sp_of . steady)\" ] && [ \"\$(sp_of . steady)\" = \"\$(sp_of skewed steady)\" ]"
check "stitch reasons say the host time was held at the baseline's" \
	"grep -q \"host time held at the baseline's\" kopt-out/steady/report.md"
# A max-autotune variant faster by less than gamma does not replace the
# first variant; the report marks the model behind it and says why.
mkdir close && cd close && mkdir models
printf '# model close\n# sim: fast autotune 1.02\nimport torch\n' > models/close.py
sed -e 's/gamma = 1.03/gamma = 1.6/' -e '/^model /,$d' ../test.kopt > test.kopt
cat >> test.kopt <<SPEC
model close {
  source = "models/close.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
target all = [close]
default all
SPEC
KOPT_SIM_LOG= "$KOPTMAKE" > out 2> err || { cat err >&2; true; }
vs_at() { sed '/^## /q' kopt-out/all/report.md | awk -F'|' '$2 ~ "^ close $" { gsub(/^ | $/, "", $8); print $8 }'; }
check "autotune 2% faster, gamma 1.6: the default stays, marked behind max-autotune ($(vs_at))" \
	"[ \"\$(vs_at)\" = '0.980x *' ] && grep -q '\"name\": \"default\"' kopt-out/close/substitutions.json"
check "... and the report says why" "grep -q '^\\\\\* Behind the max-autotune variant by less than gamma' kopt-out/all/report.md"
cd ..
# A variant whose race medians lead by 6% (over gamma) while its rounds
# swing 13% either way is inside the noise: the first variant stays, in
# the stitch's choice and in the report's; with rounds that agree, the
# same 6% wins.
for how in noisy steady; do
	mkdir "$how" && (
		cd "$how" && mkdir models
		{ echo "# model lead"; echo "# sim: fast autotune 1.06"; echo "# sim: graph-keys"
		  [ "$how" = noisy ] && echo "# sim: noisy race"; echo "import torch"; } > models/lead.py
		sed -e '/^model /,$d' ../test.kopt > test.kopt
		printf 'model lead {\n  source = "models/lead.py"\n  variant default { }\n  variant autotune { mode = "max-autotune-no-cudagraphs" }\n}\ntarget all = [lead]\ndefault all\n' >> test.kopt
		KOPT_SIM_LOG= CXX=/opt/sim/bin/g++ "$KOPTMAKE" > out 2> err || cat err >&2
	)
done
chose() { sed -n 's/.*"name": "\([a-z-]*\)".*/\1/p' "$1/kopt-out/lead/substitutions.json" | head -n 1; }
# the target report's variant and optimized time for lead, and the
# optimized time of a variant's own stitch (the model's report)
row() { sed '/^## /q' "$1/kopt-out/all/report.md" | awk -F'|' '$2 ~ "^ lead $" { gsub(/ /, "", $3); gsub(/ /, "", $6); print $3 "," $6 }'; }
own() { awk -F'|' -v v="$2" '$2 ~ "^ "v" $" && $3 ~ /pass|fail/ { gsub(/ /, "", $5); print v "," $5; exit }' "$1/kopt-out/lead/report.md"; }
check "race medians 6% apart, rounds swinging 13%: the first variant stays (stitch $(chose noisy), report $(row noisy))" \
	"[ \"\$(chose noisy)\" = default ] && [ \"\$(row noisy)\" = \"\$(own noisy default)\" ]"
check "... rounds that agree: the 6% wins (stitch $(chose steady), report $(row steady))" \
	"[ \"\$(chose steady)\" = autotune ] && [ \"\$(row steady)\" = \"\$(own steady autotune)\" ]"
# the deployment's table holds the chosen variant's graph-cache keys (its
# profile's), keyed by a worker that kept koptmake's CXX: another CXX
# keys the same variant apart in that part alone
keys() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(json.dumps(d.get("graph_keys") or d["profile"].get("graph_keys"), sort_keys=True))' "$1" 2>/dev/null; }
check "the table has the chosen variant's graph-cache keys (noisy: default's, steady: autotune's)" \
	"[ -n \"\$(keys noisy/kopt-out/lead/profile.json)\" ] && [ \"\$(keys noisy/kopt-out/lead/substitutions.json)\" = \"\$(keys noisy/kopt-out/lead/profile.json)\" ] && [ \"\$(keys steady/kopt-out/lead/substitutions.json)\" = \"\$(keys steady/kopt-out/lead/profile-autotune.json)\" ]"
mkdir cxx && cp -r steady/models steady/test.kopt cxx/ && (cd cxx && KOPT_SIM_LOG= CXX=/usr/bin/clang++ "$KOPTMAKE" > out 2> err || cat err >&2)
apart=$(PYTHONPATH=$top_srcdir/runtime/python python3 -c 'import json, sys; from kopt import graphkeys as GK; k = lambda p: json.load(open(p))["graph_keys"]; print(GK.parts_apart(k(sys.argv[1]), k(sys.argv[2])))' steady/kopt-out/lead/substitutions.json cxx/kopt-out/lead/substitutions.json 2>&1)
check "the workers key with koptmake's CXX: another CXX, the same variant's key apart in cpp.cxx alone ($apart)" \
	"[ \"\$apart\" = \"['inductor_config[cpp.cxx]']\" ]"
echo "1..$n"
