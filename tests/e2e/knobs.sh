#!/bin/sh
# tests/e2e/knobs.sh: a source knob found by the screen, end to end with the
# simulated worker (a TEST DOUBLE, tests/sim-worker.c). Its screen tries the
# knobs "evict0=first+rstages=2" on the kernel's own config first and finds
# them 1.6x faster alone; that point, with its edited source, must become
# candidate 0, named after its knobs ("screen:evict+rstages"), pass the
# gates, and be named as the winning strategy by the report, the -t why
# output, substitutions.json (which the deployment reads) and the long-term
# memory. A second kernel's screen without knobs still gives config-only
# candidates named "screen"; a third's tile knobs (a GEMM template's
# BLOCK_M...) are named "tile". Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" knobs
mkdir models
printf '# model knobbed\n# sim: kernels 1\n# sim: reductions\n# sim: knob evict0=first+rstages=2\nimport torch\n' > models/knobbed.py
printf '# model plain\n# sim: kernels 1\n# sim: reductions\nimport torch\n' > models/plain.py
printf '# model tiled\n# sim: kernels 1\n# sim: reductions\n# sim: knob evict1=none+BLOCK_M=128+BLOCK_N=64+GROUP_M=4\nimport torch\n' > models/tiled.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 4  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model knobbed { source = "models/knobbed.py" }
model plain { source = "models/plain.py" }
model tiled { source = "models/tiled.py" }
target all = [knobbed, plain, tiled]
default all
SPEC
"$KOPTMAKE" > out 2> err || { cat err >&2; exit 1; }
k=triton_red_fused__softmax_0
edit='evict0=first+rstages=2'
own='XBLOCK=1 R0_BLOCK=2048 num_warps=16 num_stages=1'
prop() { "$KOPTMAKE" -t query propose "$1/default/$k/c$2"; }
prop knobbed 0 > c0.json
check "the screen kept the knobbed point: -t why names its edit" \
	"\"$KOPTMAKE\" -t why screen knobbed/default/$k | grep -q '^  best 1 .* + $edit  1\\.[0-9]*x alone\$'"
check "-t why screen: the table's row has the edit" \
	"\"$KOPTMAKE\" -t why screen knobbed/default/$k | grep -q '^  | 1 | $own + $edit | 1\\.[0-9]*x |'"
check "c0 is the knobbed point, named after its knobs" \
	"grep -q '\"name\": \"screen:evict+rstages\"' c0.json && grep -q '\"edit\": \"$edit\"' c0.json"
check "c0 carries the edited source from the screen" \
	"grep -q '# kopt knob: $edit' c0.json && grep -q '\"screen_edits\"' c0.json"
check "c0's reason gives its time alone with its knobs" \
	"grep -q '\"reason\": \"screen: $edit $own (1\\.[0-9]*x alone)\"' c0.json"
check "the report's strategy column names the knobs, and c0 passed" \
	"grep -q '^| 0 | tuner: screen $edit ($own) | pass' kopt-out/knobbed/report.md"
check "the report's screen line names the knobs" \
	"grep -q '^Screen: .* the best 1\\.[0-9]*x alone: $own with the source knobs $edit\\. Candidates from it: c0' kopt-out/knobbed/report.md"
check "the report names the winning strategy" \
	"grep -q '| $k | tuner: screen $edit ($own) | 1\\.[0-9]*x |' kopt-out/knobbed/report.md"
check "substitutions.json: the edit beside its source (deploy.py re-applies it)" \
	"python3 -c 'import json,sys; d=json.load(open(\"kopt-out/knobbed/substitutions.json\"))[\"kernels\"]; s=list(d.values()); sys.exit(not (len(s) == 1 and s[0][\"edit\"] == \"$edit\" and \"# kopt knob: $edit\" in s[0][\"source\"]))'"
check "memory files the lesson under the knobs' name" \
	"grep -q '\"s\":\"screen:evict+rstages\",\"v\":\"pass\"' .kopt/memory.jsonl"
prop plain 0 > p0.json
check "a screen without knobs: config-only candidates named screen, no edit" \
	"grep -q '\"name\": \"screen\"' p0.json && ! grep -q '\"edit\"' p0.json && ! grep -q 'screen_edits' p0.json && grep -q '\"source\": null' p0.json"
check "... and its substitutions name no edit" \
	"! grep -q '\"edit\"' kopt-out/plain/substitutions.json"
prop tiled 0 > t0.json
check "a template's tile knobs: the candidate is named screen:evict+tile" \
	"grep -q '\"name\": \"screen:evict+tile\"' t0.json && grep -q '\"edit\": \"evict1=none+BLOCK_M=128+BLOCK_N=64+GROUP_M=4\"' t0.json"
echo "1..$n"
