#!/bin/sh
# tests/e2e/gpus.sh: the scheduler spreads work over every GPU of a device,
# with the simulated worker pretending to be 1, 2, 4 and 8 GPUs (a test
# double: CUDA_VISIBLE_DEVICES names the slot). For each: the results equal
# the one-GPU run's; no two timing steps (profile, verify, stitch) overlap on
# one GPU; and with work ready every GPU is used at once. Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
KOPT_WORKER=$top_builddir/tests/sim-worker
KOPT_SIM_DELAY_MS=40
# its model files are "# sim:" lines, read by a TEST DOUBLE of the worker's Python
KOPT_PYTHON=$top_srcdir/tests/sim-python
export KOPT_WORKER KOPT_SIM_DELAY_MS KOPT_PYTHON
unset KOPT_LAUNCHER 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-gpus-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
for g in 1 2 4 8; do
	d=$tmp/g$g
	mkdir -p "$d/models"
	for m in a b c d e f g h; do printf '# model %s\nimport torch\n' "$m" > "$d/models/$m.py"; done
	cat > "$d/s.kopt" <<SPEC
device sim { gpus = $g  timeout = 60s }
agents default { budget = 2  hot = 0.05  seed = 1 }
gates strict { seeds = 5  gamma = 1.03 }
defaults { device = sim  agents = default  gates = strict }
models all_models = glob("models/*.py") { }
target all = [all_models]
SPEC
	status=0
	( cd "$d" && KOPT_SIM_TRACE=$d/trace "$KOPTMAKE" -f s.kopt > out 2> err ) || status=$?
	models=$(python3 -c 'import json,sys; print(" ".join(m["model"] + "=" + m["verdict"] for m in json.load(open(sys.argv[1]))["models"]))' "$d/kopt-out/all/report.json" 2>/dev/null || true)
	check "$g GPUs: the build succeeds (exit $status), the report has the 8 models with a verdict" \
		"[ $status -eq 0 ] && [ \$(printf '%s\\n' $models | grep -c '^all_models/[a-h]=\\(optimized\\|baseline\\)$') -eq 8 ]"
	# overlapping timing steps on one GPU
	clash=$(awk '$1 != "ping" && $1 != "capture" && $1 != "bandwidth" { gpu[NR]=$2; s[NR]=$3; e[NR]=$4 }
		END { c = 0; for (i in s) for (j in s) if (i < j && gpu[i] == gpu[j] && s[i] < e[j] && s[j] < e[i]) c++; print c }' "$d/trace")
	check "$g GPUs: no two timing steps share a GPU ($clash overlaps)" "[ $clash -eq 0 ]"
	used=$(awk '{ print $2 }' "$d/trace" | sort -u | wc -l)
	check "$g GPUs: every GPU used ($used)" "[ $used -eq $g ]"
	peak=$(awk '{ print $3, 1; print $4, -1 }' "$d/trace" | sort -n -k1,1 -k2,2 | awk '{ c += $2; if (c > m) m = c } END { print m }')
	check "$g GPUs: $g steps at once while work is ready (peak $peak)" "[ $peak -eq $g ]"
done
# the reports, less what the steps' wall time says (the GPU-minutes, to a
# tenth: a slow machine, or one under a sanitizer, can round a model's
# seconds to another tenth on one run): the rest is the same byte for byte
for g in 1 2 4 8; do
	python3 -c 'import json, sys
def drop(o):
    if isinstance(o, dict):
        return {k: drop(v) for k, v in o.items() if not k.startswith("gpu_minutes")}
    return [drop(v) for v in o] if isinstance(o, list) else o
print(json.dumps(drop(json.load(open(sys.argv[1]))), sort_keys=True, indent=1))' "$tmp/g$g/kopt-out/all/report.json" > "$tmp/result$g.json"
done
check "the results are the same on 1, 2, 4 and 8 GPUs (their GPU-minutes aside)" \
	"[ -s $tmp/result1.json ] && grep -q '\"speedup\"' $tmp/result1.json && cmp -s $tmp/result1.json $tmp/result2.json && cmp -s $tmp/result1.json $tmp/result4.json && cmp -s $tmp/result1.json $tmp/result8.json"
for g in 2 4 8; do
	"$top_srcdir/bench/compare-runs" "$tmp/g1" "$tmp/g$g" > "$tmp/cmp$g" 2>&1 && r=0 || r=$?
	check "bench/compare-runs: $g GPUs give the one-GPU run's result ($(tail -1 "$tmp/cmp$g"))" "[ $r -eq 0 ] && tail -1 $tmp/cmp$g | grep -q 'same result: 8 of 8 models'"
done
# and it tells a different choice apart: another variant for one model
sed -i 's/"name": "default"/"name": "other"/' "$tmp/g2/kopt-out/all_models/a/substitutions.json"
"$top_srcdir/bench/compare-runs" "$tmp/g1" "$tmp/g2" > "$tmp/cmpx" 2>&1 && r=0 || r=$?
changed=$(grep -c '^| all_models/a | no |' "$tmp/cmpx" || true)
check "bench/compare-runs tells a changed choice apart (exit $r)" "[ $r -eq 1 ] && [ $changed -eq 1 ] && tail -1 $tmp/cmpx | grep -q '7 of 8'"
echo "1..$n"
