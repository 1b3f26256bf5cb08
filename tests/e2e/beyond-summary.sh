#!/bin/sh
# tests/e2e/beyond-summary.sh: bench/beyond/summarize.py, the benchmark's
# judgement, on a build shaped like bench/beyond/beyond.kopt (model groups
# l1 and l2, each model with Inductor's defaults and max-autotune) with the
# simulated worker (a TEST DOUBLE: each model's times are set by its
# "# sim:" lines). The summary's figures are worked out again from
# report.json by hand: per level, the problems, the geomean over
# torch.compile and over max-autotune, the problems below 0.97; the rows
# per problem; the wins with their strategies. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" beyond-summary
mkdir -p models/l1 models/l2
# model FILE CANDIDATE_SPEEDUP AUTOTUNE_SPEED [HOST_SHARE]
mk() {
	printf '# model %s\n# sim: steady\n# sim: time 100000\n# sim: kernels 1\n# sim: host %s\n# sim: speedup %s\n# sim: fast autotune %s\nimport torch\n' \
		"$1" "${4:-0.1}" "$2" "$3" > "models/$1.py"
}
mk l1/a 1.5 1.25   # a winner
mk l1/b 0.9 2      # no winner: max-autotune's own code
mk l1/c 1.3 0.8    # a winner; max-autotune slower than the defaults
mk l2/d 0.9 1 0.3  # nothing: the baseline stays; 30% of a call the host's
cat > test.kopt <<'SPEC'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-2  rtol = 1e-2  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
models l1 = glob("models/l1/*.py") { variant default { }  variant autotune { mode = "max-autotune-no-cudagraphs" } }
models l2 = glob("models/l2/*.py") { variant default { }  variant autotune { mode = "max-autotune-no-cudagraphs" } }
target all = [l1, l2]
default all
SPEC
set +e
"$KOPTMAKE" > out 2> err
st=$?
set -e
check "the build succeeds (exit $st)" "[ $st -eq 0 ] && [ -s kopt-out/all/report.json ]"
[ $st -eq 0 ] || sed 's/^/# /' err
python3 "$top_srcdir/bench/beyond/summarize.py" kopt-out/all/report.json > summary.md 2> serr
st=$?
check "summarize.py runs (exit $st)" "[ $st -eq 0 ] && [ -s summary.md ]"
[ $st -eq 0 ] || sed 's/^/# /' serr
# the figures again from report.json, as the lines summarize.py should print
python3 - kopt-out/all/report.json > want <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
for lv in ("l1", "l2"):
    ms = [m for m in d["models"] if m["model"].startswith(lv + "/")]
    low = [m["model"].split("/")[-1] for m in ms if min(m["speedup"], m["speedup_vs_max_autotune"]) < 0.97]
    room = [m for m in ms if m["max_autotune_over_bound"] >= 1.25]
    cap = [math.log(m["speedup_vs_max_autotune"]) / math.log(m["max_autotune_over_bound"]) for m in room]
    print(f"{lv} {len(ms)} {g([m['speedup'] for m in ms]):.3f}x {g([m['speedup_vs_max_autotune'] for m in ms]):.3f}x "
          f"{', '.join(low) or 'none'} {len(room)} {g([m['speedup_vs_max_autotune'] for m in room]):.3f}x "
          f"{sum(cap) / len(cap):.2f}")
print("wins", " ".join(sorted(m["model"] for m in d["models"]
                             if m.get("verdict") == "optimized" and m["speedup_vs_max_autotune"] >= 1.03)))
PY
awk -F' [|] ' '/^[|] l[12] [|]/ { sub(/^[|] /, ""); print $1, $2, $4, $5, $6, $7, $8, $9 }' summary.md | sed 's/ |$//' > got
wins=$(sed -n 's/^- \([^ ]*\) (.*/\1/p' summary.md | sort | tr '\n' ' ' | sed 's/ $//')
echo "wins $wins" >> got
check "per level: problems, geomeans over torch.compile and max-autotune, those below 0.97, those with room (ceiling 1.25x or more), their geomean and the room captured, as report.json gives them" \
	"diff want got > /dev/null"
diff want got | sed 's/^/# /' || true
check "four problem rows, each with its verdict and variant" \
	"[ \$(sed -n '/^| problem | verdict/,/^\$/p' summary.md | grep -c '^| l[12]/[a-d] | ') -eq 4 ]"
check "two wins over max-autotune, a and c, each with the strategy of its kernel; not b, where max-autotune's code won" \
	"[ '$wins' = 'l1/a l1/c' ] && grep '^- l1/a ' summary.md | grep -q 'triton_.*: .*x alone'"
check "the sample's numbers: l1 has three problems, l2 one" "grep -q '^| l1 | 3 | 3 |' summary.md && grep -q '^| l2 | 1 | 1 |' summary.md"
# host-bound: d alone (30% of a call; the others 10%), with report.json's figures
hb=$(sed -n '/^## Host-bound problems/,$p' summary.md | grep '^| l[12]/' | tr -d ' ' | tr '\n' ' ')
want=$(python3 -c 'import json; m=[m for m in json.load(open("kopt-out/all/report.json"))["models"] if m["model"] == "l2/d"][0]; print("|l2/d|30%%|30%%|%.3fx|%.3fx|%.3fx| " % (m["speedup"], m["device_speedup"], m["device_speedup_vs_max_autotune"]))')
check "the host-bound problems: l2/d alone, 30% host in torch.compile's call and in the chosen one (its baseline kept), its speedups per call and in device time ($hb)" "[ '$hb' = '$want' ]"
# models of their own (no group prefix: the example networks) count in
# their report's target; a level without room prints "-", not nan
python3 -c '
import json, sys
d = json.load(open("kopt-out/all/report.json"))
d["target"] = "nets"
for m in d["models"]:
    m["model"] = m["model"].split("/")[-1]
    m["max_autotune_over_bound"] = 1.0
json.dump(d, open("nets.json", "w"))'
python3 "$top_srcdir/bench/beyond/summarize.py" nets.json > nets.md 2>&1 || true
check "models of their own count in the report's target; no room: '-' for its geomean and the room captured" \
	"grep -q '^| nets | 4 | 4 | [0-9.]*x | [0-9.]*x | .* | 0 | - | - |\$' nets.md && [ \$(grep -c '^| [a-z]* | [0-9]* | [0-9]* |' nets.md) -eq 1 ] && ! grep -q nan nets.md"
# a benchmark built in parts: the same report split in two by level, each
# with its own GPU-minutes, judged as one; a problem in both is an error
python3 -c '
import json
d = json.load(open("kopt-out/all/report.json"))
for lv, f in (("l1", 0.25), ("l2", 0.75)):
    p = dict(d, models=[m for m in d["models"] if m["model"].startswith(lv + "/")],
             gpu_minutes_by_step={"capture": 4.0 * f, "profile": 2.0 * f, "stitch": 2.0})
    json.dump(p, open(f"part-{lv}.json", "w"))
json.dump(dict(d, gpu_minutes_by_step={"capture": 3.0, "profile": 1.0}), open("whole.json", "w"))'
python3 "$top_srcdir/bench/beyond/summarize.py" part-l1.json part-l2.json > parts.md 2>&1
st=$?
python3 "$top_srcdir/bench/beyond/summarize.py" whole.json > whole.md 2>&1
check "two parts judged as one (exit $st): the level and problem tables as the whole report's" \
	"[ $st -eq 0 ] && [ \"\$(sed '/^## GPU time/,\$d' parts.md)\" = \"\$(sed '/^## GPU time/,\$d' whole.md)\" ]"
check "their GPU-minutes per step summed over the two reports, capture's share of all" \
	"grep -q 'summed over 2 reports' parts.md && grep -q '^| capture | profile | stitch | all | capture.s share |' parts.md && grep -q '^| 4.0 | 2.0 | 4.0 | 10.0 | 40.0% |\$' parts.md"
check "one report: its own GPU-minutes, capture's share (75.0%)" \
	"grep -q '^| 3.0 | 1.0 | 4.0 | 75.0% |\$' whole.md && ! grep -q 'summed over' whole.md"
set +e
python3 "$top_srcdir/bench/beyond/summarize.py" part-l1.json whole.json > dup.md 2> dup.err
st=$?
set -e
check "a problem in two reports: exit 2, naming it and both files (exit $st)" \
	"[ $st -eq 2 ] && grep -q 'l1/[a-c] is in both part-l1.json and whole.json' dup.err"
echo '{"target": "x"}' > notreport.json
set +e
python3 "$top_srcdir/bench/beyond/summarize.py" part-l1.json notreport.json > /dev/null 2> nr.err
st=$?
set -e
check "a file that is not a report: exit 2, named (exit $st)" "[ $st -eq 2 ] && grep -q 'notreport.json: not a report' nr.err"
echo "1..$n"
