#!/bin/sh
# tests/e2e/affinity.sh: the order of GPU steps and the worker each lands
# on, with the simulated worker (a TEST DOUBLE).
#
# One GPU, the project's examples: captures and profiles come first (they
# reveal the work), each capture followed by its profile, so the worker
# switches model variant once per variant there; then the kernels' chains
# of candidates in order of expected gain, each chain unbroken, so the
# verifies switch at most once per chain. (FIFO order once switched at 140
# of 213 requests; an earlier bound here, 1.5 switches per variant in all,
# held for an order that verified the first model before capturing the
# last, which leaves a stopped build without the other models' profiles.)
#
# Two models on two workers (two GPUs, and one GPU with -j 2): every step
# of a model lands on one worker, and the models on different ones. Each
# model has one variant and one hot kernel, so its steps come one at a
# time: a model whose steps are ready two at once may spread to an idle
# worker rather than leave it idle. (A pool that takes the first idle
# worker moves a model to the other worker in most runs.)
# Prints TAP.
set -eu
KOPT_WORKER=$top_builddir/tests/sim-worker
export KOPT_WORKER
# its model files are "# sim:" lines, read by a TEST DOUBLE of the worker's Python
KOPT_PYTHON=$top_srcdir/tests/sim-python
export KOPT_PYTHON
unset KOPT_LAUNCHER KOPT_SIM_TORCH KOPT_SIM_DELAY_MS 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-aff-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$top_srcdir/examples" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (cd "$tmp" && tar xf -)
KOPT_SIM_LOG=$tmp/sim.log
export KOPT_SIM_LOG
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
set +e
"$top_builddir/koptmake" -C "$tmp" all >"$tmp/out" 2>&1
status=$?
set -e
# every model of target all has its entry and a verdict in report.json
want=$("$top_builddir/koptmake" -C "$tmp" -t query 2>/dev/null | awk '$2 == "stitch" { print $3 }' | sort | tr '\n' ' ')
got=$(python3 -c 'import json,sys; print(" ".join(sorted(m["model"] for m in json.load(open(sys.argv[1]))["models"] if m["verdict"] in ("optimized", "baseline"))))' "$tmp/kopt-out/all/report.json" 2>/dev/null || true)
check "the examples build with the simulated worker (exit $status), every model in the report with its verdict" \
	"[ $status -eq 0 ] && [ -n '$got' ] && [ '$got ' = '$want' ]"
keys=$(awk '$1 != "race" { print $2, $3 }' "$tmp/sim.log" | sort -u | wc -l)
# switches of model variant from one request to the next, among some ops
switches() { awk -v ops="$1" 'index(ops, " " $1 " ") { k = $2 " " $3; if (k != prev) s++; prev = k } END { print s + 0 }' "$tmp/sim.log"; }
reveal=$(switches " capture profile ")
verifies=$(switches " verify ")
chains=$(awk '$1 == "verify" { print $2, $3, $4 }' "$tmp/sim.log" | sort -u | wc -l)
runs=$(awk '$1 == "verify" { k = $2 " " $3 " " $4; if (k != prev) s++; prev = k } END { print s + 0 }' "$tmp/sim.log")
echo "# $(wc -l <"$tmp/sim.log") requests, $keys model variants, $chains chains; switches: $reveal in captures and profiles, $verifies in verifies"
last_reveal=$(grep -n '^\(capture\|profile\) ' "$tmp/sim.log" | tail -n 1 | cut -d: -f1)
first_verify=$(grep -n '^verify ' "$tmp/sim.log" | head -n 1 | cut -d: -f1)
check "every capture and profile runs before the first verify" "[ $last_reveal -lt $first_verify ]"
check "captures and profiles switch model variant once per variant ($reveal for $keys)" "[ $reveal -le $keys ]"
check "each kernel's chain of candidates runs unbroken ($runs runs of $chains chains)" "[ $runs -eq $chains ]"
check "verifies switch model variant at most once per chain ($verifies for $chains)" "[ $verifies -le $chains ]"

# two models, two workers
for setup in "2 0" "1 2"; do
	set -- $setup
	d=$tmp/two-$1-$2
	mkdir -p "$d/models"
	for m in a b; do printf '# model %s\n# sim: kernels 1\nimport torch\n' "$m" > "$d/models/$m.py"; done
	cat > "$d/s.kopt" <<SPEC
device sim { gpus = $1  timeout = 60s }
agents default { budget = 4  hot = 0.05  seed = 1 }
gates strict { seeds = 5  gamma = 1.03 }
defaults { device = sim  agents = default  gates = strict }
model a { source = "models/a.py" }
model b { source = "models/b.py" }
target all = [a, b]
SPEC
	jobs=
	[ "$2" -gt 0 ] && jobs="-j $2"
	status=0
	( cd "$d" && KOPT_SIM_LOG= KOPT_SIM_WHO=$d/who "$top_builddir/koptmake" -f s.kopt $jobs > out 2> err ) || status=$?
	what="$1 GPU(s)${jobs:+, $jobs}"
	models=$(python3 -c 'import json,sys; print(" ".join(m["model"] + "=" + m["verdict"] for m in json.load(open(sys.argv[1]))["models"]))' "$d/kopt-out/all/report.json" 2>/dev/null || true)
	check "$what: the two models build (exit $status; $models)" \
		"[ $status -eq 0 ] && printf '%s\\n' $models | sed 's/=\\(optimized\\|baseline\\)\$//' | tr '\\n' ' ' | grep -qx 'a b '"
	steps=$(wc -l < "$d/who")
	per_model=$(awk '{ print $2, $4 }' "$d/who" | sort -u | awk '{ print $1 }' | uniq -c | awk '$1 != 1' | wc -l)
	check "$what: every GPU step of a model ($steps in all) lands on one worker" "[ $steps -ge 14 ] && [ $per_model -eq 0 ]"
	workers=$(awk '{ print $4 }' "$d/who" | sort -u | wc -l)
	check "$what: the models on different workers ($workers)" "[ $workers -eq 2 ]"
done
echo "1..$n"
