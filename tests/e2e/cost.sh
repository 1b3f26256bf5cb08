#!/bin/sh
# tests/e2e/cost.sh: every report says what the GPU time went on (issue 16).
# With the simulated worker (a TEST DOUBLE) slowed per operation, report.json
# gives each model's GPU-minutes by step kind (to a tenth, as the report's
# other figures of time, so that reports stay the same from build to
# build), equal to what the build log recorded for its steps, and report.md
# a GPU-time table with the total. Screening is on (the default): the table
# has a screen column.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" cost
mkdir models
printf '# model slowv\n# sim: kernels 1\n# sim: slow verify 2700\n# sim: slow screen 8200\nimport torch\n' > models/slowv.py
printf '# model quick\n# sim: kernels 1\nimport torch\n' > models/quick.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin }
defaults { device = sim  agents = default }
model slowv { source = "models/slowv.py" }
model quick { source = "models/quick.py" }
target all = [slowv, quick]
default all
SPEC
rc=0
"$KOPTMAKE" > out 2> err || rc=$?
check "the build succeeds" "[ $rc -eq 0 ]"
# the build log's durations of one model's steps of one kind, in minutes to a tenth
logmin() { awk -F'\t' -v k="$1" -v m="$2" '$4 == k && (index($5, m "/") == 1 || $5 == m) { s += $2 } END { printf "%.1f", int(s / 6000 + 0.5) / 10 }' .kopt/log; }
json() { python3 -c "import json; m={x['model']: x for x in json.load(open('kopt-out/all/report.json'))['models']}; print(m['$1']['gpu_minutes_by_step']['$2'])"; }
check "slowv's two verifies of 2.7 s: 0.1 GPU-minutes ($(json slowv verify)), as the build log says ($(logmin verify slowv))" \
	"[ \"\$(json slowv verify)\" = 0.1 ] && [ \"\$(logmin verify slowv)\" = 0.1 ]"
total() { python3 -c "import json; m={x['model']: x for x in json.load(open('kopt-out/all/report.json'))['models']}; print('%.1f' % m['$1']['gpu_minutes'])"; }
check "slowv's GPU-minutes in all: its seconds summed, then rounded (0.2, where each kind is 0.1): $(total slowv)" \
	"[ \"\$(total slowv)\" = 0.2 ] && [ \"\$(total quick)\" = 0.0 ]"
check "quick's verifies: 0.0 ($(json quick verify))" "[ \"\$(json quick verify)\" = 0.0 ]"
check "slowv's screen of 8.2 s: 0.1 GPU-minutes (8.2 s over 60, to a tenth; not 0.2) ($(json slowv screen)), as the build log says ($(logmin screen slowv))" \
	"[ \"\$(json slowv screen)\" = 0.1 ] && [ \"\$(logmin screen slowv)\" = 0.1 ]"
# the total row's all: 13.9 s and more (5.4 + 8.2 and the rest, less than
# 15 s) is 0.2, where each kind alone is 0.1: the total is the seconds
# summed, then rounded
check "report.md has the GPU-time table, slowv's screen and verify columns and the total row, its all the seconds summed (0.2)" \
	"sed -n '/^## GPU time/,/^## /p' kopt-out/all/report.md | grep -q '^| model | capture | profile | screen | verify | stitch | all |' &&
	 sed -n '/^## GPU time/,/^## /p' kopt-out/all/report.md | grep -q '^| slowv | 0.0 | 0.0 | 0.1 | 0.1 | 0.0 | 0.2 |' &&
	 sed -n '/^## GPU time/,/^## /p' kopt-out/all/report.md | grep -q '^| all | 0.0 | 0.0 | 0.1 | 0.1 | 0.0 | 0.2 |'"
check "report.json has the totals by kind" \
	"python3 -c \"import json; d=json.load(open('kopt-out/all/report.json')); assert d['gpu_minutes_by_step'] == {'capture': 0.0, 'profile': 0.0, 'screen': 0.1, 'verify': 0.1, 'stitch': 0.0}, d['gpu_minutes_by_step']\""
# -t why of a verify says which of the worker's stored references the
# verdict used (the simulator reports them as the real worker does)
k=$(awk '$1 == "verify" && $2 == "slowv" { print $4; exit }' sim.log)
"$KOPTMAKE" -t why "verify slowv/default/$k/c0" > why0 2>&1 || true
"$KOPTMAKE" -t why "verify slowv/default/$k/c1" > why1 2>&1 || true
check "-t why verify names the references each verdict used" \
	"grep -q 'references  *baseline outputs cached [0-9]*, computed [0-9]*; float64 cached' why0 &&
	 grep -q 'references  *baseline outputs cached [0-9]*, computed [0-9]*; float64 cached' why1"
check "-t why verify says where the request's seconds went (the model compiled or kept, the build, the gates)" \
	"grep -Eq '^  seconds +model [0-9.]+ \((compiled|kept from an earlier request)\), candidate built 0\.2, gates 1\.5\$' why0 &&
	 grep -Eq '^  seconds +model 0\.0 \(kept from an earlier request\)' why1"
echo "1..$n"
