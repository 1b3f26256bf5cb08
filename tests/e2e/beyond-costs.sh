#!/bin/sh
# tests/e2e/beyond-costs.sh: bench/beyond/costs.py, where a slice's time
# went, on the records of a build with the simulated worker (a TEST
# DOUBLE): per kind of step its count and seconds, worked out again from
# .kopt/log by hand; the screens' configs per second for the max-autotune
# variant and the others, from the screens' results; and a slice (SINCE_MS)
# counts only the steps from then on. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" beyond-costs
mkdir models
printf '# model m\n# sim: kernels 2\n# sim: reductions\n# sim: time 1000000\n# sim: dram 1\nimport torch\n' > models/m.py
spec() {
	cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 60s }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin  screen = 1s }
gates strict { seeds = 3  atol = 1e-4  rtol = 1e-4  gamma = $1  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model m { source = "models/m.py"  variant default { }  variant autotune { mode = "max-autotune-no-cudagraphs" } }
target all = [m]
default all
SPEC
}
spec 1.03
KOPT_SIM_DELAY_MS=40 "$KOPTMAKE" > out 2> err  # each worker op takes 40 ms or more: seconds to count
python3 "$top_srcdir/bench/beyond/costs.py" .kopt > costs.md
# by hand: each kind's count and seconds from the log
want() { awk -F'\t' -v k="$1" '$4 == k { n++; ms += $2 } END { printf "| %s | %d | %.1f |", k, n, ms / 1000 }' .kopt/log; }
for k in capture profile screen verify stitch; do
	check "$k: $(want $k)" "grep -qF '$(want $k)' costs.md && ! grep -qF '| $k | 0 |' costs.md"
done
check "the steps take time: verify's seconds are not 0.0" "! grep -q '^| verify | [0-9]* | 0.0 |' costs.md"
check "screens per kind of variant: two each (two hot kernels), at a median of configs per second" \
	"grep -q '^| max-autotune | 2 | [0-9.]* |\$' costs.md && grep -q '^| the others | 2 | [0-9.]* |\$' costs.md"
# the points compiled ahead, and how many of them Triton's cache answered,
# counted again from the screens' rows (the simulated worker marks them)
counts=$(top_srcdir="$top_srcdir" python3 - <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "bench", "beyond"))
from costs import latest  # each step's latest result (its parsing is the rates' checks above)
ahead = points = told = hits = 0
for _, m in latest(".kopt/actions", "screen"):
    ahead += int(m.get("prefetched") or 0)
    points += int(m.get("compiles") or 0)
    for r in m.get("tried") or []:
        if r.get("prefetched") and isinstance((r.get("load_parts") or {}).get("cache_hit"), bool):
            told += 1
            hits += r["load_parts"]["cache_hit"]
print(ahead, points, hits, told)
PY
)
set -- $counts
check "points compiled ahead: $1 of $2" "[ $1 -gt 0 ] && grep -q '^Points compiled ahead by the compile children: $1 of $2 ' costs.md"
check "Triton's cache answered $3 of $4 of them" "[ $4 -gt 0 ] && grep -qx \"Of those whose load says, Triton's cache answered $3 of $4.\" costs.md"
# the verifies' phases (the simulated worker compiles the model in a
# process's first verify, 2.5 s, and keeps it after; gate 1 0.125 s,
# builds 0.25 s, the other gates 1.5 s), summed again from the actions
vph=$(top_srcdir="$top_srcdir" python3 - <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "bench", "beyond"))
from costs import latest
ph = [m["phases"] for _, m in latest(".kopt/actions", "verify") if "phases" in m]
c = [p for p in ph if p["compiled"]]
print(len(ph), len(c), "%.1f" % sum(p["model_s"] for p in c), "%.1f" % sum(p["build_s"] for p in ph),
      "%.1f" % sum(p["gates_s"] for p in ph), "%.1f" % sum(p["static_s"] for p in ph))
PY
)
set -- $vph
check "verifies' phases: $1 verifies, the model compiled in $2 ($3 s), gate 1 $6 s, builds $4 s, the other gates $5 s" \
	"[ $1 -gt 0 ] && [ $2 -gt 0 ] && [ $2 -lt $1 ] && [ \"$6\" != 0.0 ] && grep -qx \"Verifies that say where their time went: $1; the model compiled in $2 of them ($3 s), kept in the rest; gate 1 $6 s; candidates built $4 s; the other gates $5 s.\" costs.md"
since=$(date +%s%3N)
spec 1.05
"$KOPTMAKE" > out 2> err
python3 "$top_srcdir/bench/beyond/costs.py" .kopt "$since" > slice.md
nv=$(awk -F'\t' -v s="$since" '$1 >= s && $4 == "verify" { n++ } END { print n + 0 }' .kopt/log)
np=$(awk -F'\t' '$4 == "profile"' .kopt/log | wc -l)
check "profiles that counted DRAM bytes: all $np, 0.75 s each" \
	"[ $np -gt 0 ] && grep -qx \"Profiles that counted DRAM bytes: $np of $np; the counters took $(awk -v n=$np 'BEGIN { printf "%.1f", n * 0.75 }') s (median 0.75 s).\" costs.md"
# the capture table: each capture's compile phases and its other parts
# (the simulated worker's: 0.5 s loading, 0.25 s around the compile, 0.25 s
# after it, 2.5 s in the worker in all; a step of 40 ms is shorter than
# that, so nothing is counted outside the worker's request)
check "captures: the step's seconds, the compile's phases, 0.5 s loading, 0.25 s around, 0.25 s after, none outside" \
	"grep -q '^| m/default | [0-9.]* | 0.2 | 0.5 | 0.5 | 0.0 | 0.2 | 0.0 | 0.5 | 0.2 | 0.2 | - |\$' costs.md"
check "a slice counts its own steps: $nv verifies, no capture" \
	"grep -q '^| verify | $nv | ' slice.md && ! grep -q '^| capture |' slice.md"
# Inductor's autotuning from the workers' logs: none in the simulated
# worker's; a real worker's log (tests/fixtures/network, recorded), whose
# eight "AUTOTUNE" blocks are counted by hand below; a block a killed
# worker left without its timing line does not count
check "no autotuning line for workers that logged none" "! grep -q \"Inductor's autotuning\" costs.md"
cp "$top_srcdir/tests/fixtures/network/worker-autotune-resnet101.log" .kopt/workers/worker-9.log
printf 'AUTOTUNE mm(10x10, 10x10)\nstrides: [10, 1], [1, 10]\n' >> .kopt/workers/worker-9.log
python3 "$top_srcdir/bench/beyond/costs.py" .kopt > tuned.md
nb=$(grep -c '^AUTOTUNE ' "$top_srcdir/tests/fixtures/network/worker-autotune-resnet101.log")
check "autotuning: $nb operators of a recorded log, 5 distinct, their seconds, the slowest" \
	"[ $nb -eq 8 ] && grep -qxF \"Inductor's autotuning (the workers' logs): 8 operators timed (5 distinct, 3 timed again), 44.8 s benchmarking and 15.3 s precompiling by its own count; the slowest mm(7840x512, 512x256): 41.7 s and 0.0 s for 21 choices.\" tuned.md"
# each compile's last progress line (kopt.compile_time's, in the format
# tests/runtime/test_compile_time.py pins), per log and label
check "no progress table for logs without progress lines" "! grep -q 'its last progress line' tuned.md"
p='kopt: compiling %s: %s s so far; templates autotuned %s s, precompiled %s s; Triton waited for %s s; launch configs tuned %s s\n'
{ printf "$p" "r.py (max-autotune-no-cudagraphs)" 30 1.0 2.0 3.0 0.0
  printf "$p" "r.py (default)" 30 0.0 0.0 4.5 0.1
  printf "$p" "r.py (max-autotune-no-cudagraphs)" 60 11.0 12.5 3.0 0.2; } > .kopt/workers/worker-8.log
printf "$p" "r.py (max-autotune-no-cudagraphs)" 90 20.0 20.0 5.0 1.0 > .kopt/workers/worker-7.log
python3 "$top_srcdir/bench/beyond/costs.py" .kopt > progress.md
check "progress: each log's last line per compile, by log and then compile" \
	"[ \"\$(grep -A5 'its last progress line' progress.md | tail -n +3)\" = \"\$(printf '%s\n' \
	'| r.py (max-autotune-no-cudagraphs) (worker-7.log) | 90 | 20.0 | 20.0 | 5.0 | 1.0 |' \
	'| r.py (default) (worker-8.log) | 30 | 0.0 | 0.0 | 4.5 | 0.1 |' \
	'| r.py (max-autotune-no-cudagraphs) (worker-8.log) | 60 | 11.0 | 12.5 | 3.0 | 0.2 |')\" ]"
echo "1..$n"
