#!/bin/sh
# tests/e2e/parallel-capture.sh: a model's variants compile side by side,
# and a step that times has its GPU alone. With the simulated worker (a
# TEST DOUBLE) each capture takes 1.5 s more; with -j3 on one GPU the three
# variants' captures overlap in time (the build log's start and duration of
# each step), and no profile, screen, verify or stitch overlaps any other
# step. With -j1 nothing overlaps. The workers share the host's cores:
# each compiles with the cores over the workers (Inductor's
# TORCHINDUCTOR_COMPILE_THREADS), unless the user set it. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" parallel-capture
mkdir models
printf '# model net\n# sim: slow capture 1500\n# sim: kernels 2\nimport torch\n' > models/net.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 60s }
agents default { budget = 1  hot = 0.05  seed = 1  backend = builtin  screen = 0 }
gates strict { seeds = 2  gamma = 1.03  repeats = 4 }
defaults { device = sim  agents = default  gates = strict }
model net {
  source = "models/net.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
  variant frozen { mode = "max-autotune-no-cudagraphs"  options = { freezing = true } }
}
target all = [net]
default all
SPEC

# the worker steps of the log that ran: "START END KIND PATH", one a line
# (proposals and reports run in koptmake itself, beside the workers)
steps() {
	awk -F'\t' 'NR > 1 && $3 == "ok" && $4 ~ /^(capture|profile|screen|verify|stitch)$/ { print $1, $1 + $2, $4, $5 }' \
		.kopt/log
}
# pairs of steps that overlap by more than 5 ms (the log's times are whole
# milliseconds), one of them of kind $1 (any kind: "")
overlaps() {
	steps | sort -n > spans
	awk -v kind="$1" '{ s[NR] = $1; e[NR] = $2; k[NR] = $3 }
		END { n = 0; for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++)
			if (s[j] < e[i] - 5 && s[i] < e[j] - 5 && (kind == "" || k[i] == kind || k[j] == kind)) n++
			print n }' spans
}
timing_overlaps() {
	t=0
	for kind in profile screen verify stitch; do t=$((t + $(overlaps $kind))); done
	echo $t
}

cpus=$(getconf _NPROCESSORS_ONLN)
KOPT_SIM_ENV_LOG=$tmp/env.log "$KOPTMAKE" -j3 > out 2> err || { cat err >&2; true; }
check "the build with three workers ends with the report" "[ -f kopt-out/all/report.json ]"
check "three captures ran" "[ \$(steps | grep -c ' capture ') -eq 3 ]"
check "the captures ran side by side ($(overlaps capture) overlapping pairs)" "[ $(overlaps capture) -ge 2 ]"
check "no timing step shared the GPU ($(timing_overlaps) overlaps)" "[ $(timing_overlaps) -eq 0 ]"
# each step's share of the GPU (engine/gpu_meter.h): the captures' shares
# add up to the time they held it together, not to three times that
share() {
	python3 -c "
import sys
sys.path.insert(0, '$top_srcdir/bench/beyond')
from costs import latest
print('%.2f' % sum(float(m.get('$1') or 0) for _, m in latest('.kopt/actions', 'capture')))"
}
wall=$(steps | awk '$3 == "capture" { if (!s || $1 < s) s = $1; if ($2 > e) e = $2 } END { printf "%.2f", (e - s) / 1000 }')
check "the captures' GPU shares add up to their wall time ($(share gpu_s) s of $wall s; $(share worker_s) s in workers)" \
	"awk -v g=$(share gpu_s) -v w=$wall -v t=$(share worker_s) 'BEGIN { exit !(g > 0.85 * w && g < 1.15 * w && t > 2 * g) }'"
check "report.md says where each variant's capture went" \
	"grep -q '^## Capture' kopt-out/net/report.md && grep -q '^| autotune | [0-9.]* | 1.5 | 0.2 | 0.2 | 0.2 | 0.8 | 0.2 | 0.0 | 0.5 | 0.2 | 0.2 | ' kopt-out/net/report.md"
check "report.json gives each variant's phases and GPU share" \
	"python3 -c \"
import json
m = json.load(open('kopt-out/all/report.json'))['models'][0]
c = {e['variant']: e for e in m['capture']}
assert set(c) == {'default', 'autotune', 'frozen'}, c
assert c['default']['autotune_s'] == 0 and c['frozen']['autotune_s'] == 0.75, c
assert all(e['gpu_minutes'] == 0 for e in c.values()), c  # 1.5 s in all: 0.0 minutes
\""
want=$((cpus / 3 > 0 ? cpus / 3 : 1))
check "each of the three workers compiles with a third of the $cpus cores" \
	"grep -qx 'TORCHINDUCTOR_COMPILE_THREADS=$want' env.log && ! grep -v '=$want\$' env.log | grep -q '^TORCHINDUCTOR_COMPILE_THREADS='"
rm -rf .kopt kopt-out env.log
TORCHINDUCTOR_COMPILE_THREADS=5 KOPT_SIM_ENV_LOG=$tmp/env.log "$KOPTMAKE" -j3 > out 2> err || { cat err >&2; true; }
check "a user's own setting stands" "grep -qx 'TORCHINDUCTOR_COMPILE_THREADS=5' env.log && ! grep -q '^TORCHINDUCTOR_COMPILE_THREADS=[^5]' env.log"

rm -rf .kopt kopt-out env.log
KOPT_SIM_ENV_LOG=$tmp/env.log "$KOPTMAKE" -j1 > out 2> err || { cat err >&2; true; }
check "with one worker the build also ends with the report" "[ -f kopt-out/all/report.json ]"
check "with one worker nothing overlaps ($(overlaps '') pairs)" "[ $(overlaps '') -eq 0 ]"
check "and it compiles with Inductor's own default" "! grep -q '^TORCHINDUCTOR_COMPILE_THREADS=' env.log"
echo "1..$n"
