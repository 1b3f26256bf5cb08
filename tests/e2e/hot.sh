#!/bin/sh
# tests/e2e/hot.sh: which kernels are hot, in which order, and what the
# agents' memory learns from verify. With the simulated worker (a TEST
# DOUBLE), "# sim: weights 1 2 4 8" gives four Triton kernels the shares
# 1/16, 2/16, 4/16 and 8/16 of the device time (the vendor kernel has the
# last 1/16): exact in binary, so a threshold can sit on a share. A kernel
# is hot with a share of at least `hot` (kopt(5)); the hottest come first
# (equal shares by name) and max_kernels keeps that many. The hot kernels
# are read from `koptmake -t query` (each one's c0 proposal, in order)
# after one build; changing hot or max_kernels runs no profile again.
# Then a build where every candidate loses and one where every candidate
# wins: memory.jsonl holds one lesson per verify, a win only for a pass.
# Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" hot
mkdir models
printf '# model w\n# sim: weights 1 2 4 8\n# sim: reductions\nimport torch\n' > models/w.py
printf '# model tie\n# sim: weights 2 1 2 2 1\n# sim: reductions\nimport torch\n' > models/tie.py
spec() {
	cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 60s }
agents default { budget = 1  hot = $1  max_kernels = $2  seed = 1  backend = builtin }
gates strict { seeds = 5  gamma = 1.03  repeats = 10 }
defaults { device = sim  agents = default  gates = strict }
model w { source = "models/w.py" }
model tie { source = "models/tie.py" }
target all = [w, tie]
default all
SPEC
}
# the hot kernels of model $1, hottest first, by their index
hot() { "$KOPTMAKE" -t query 2>/dev/null | sed -n "s|^[a-z]*  *propose $1/default/triton_red_fused__softmax_\([0-9]*\)/c0\$|\1|p" | tr '\n' ' '; }
profiles() { if [ -f sim.log ]; then grep -c '^profile ' sim.log || true; else echo 0; fi; }

spec 0.05 10
set +e
"$KOPTMAKE" > out 2> err
st=$?
set -e
check "the build succeeds (exit $st)" "[ $st -eq 0 ]"
check "the profile says 6.2%, 12.5%, 25.0%, 50.0% (w's kernels 0..3)" \
	"[ \"\$(sed -n 's/^| triton_red_fused__softmax_\([0-9]\) | [^|]* | [^|]* | [^|]* | [^|]* | \([0-9.]*%\) | .*/\1=\2/p' kopt-out/w/profile.md | tr '\n' ' ')\" = '0=6.2% 1=12.5% 2=25.0% 3=50.0% ' ]"
rm -f sim.log
# case HOT MAX_KERNELS WANT_W WANT_TIE DESCRIPTION
case_() {
	spec "$1" "$2"
	w=$(hot w)
	t=$(hot tie)
	check "hot = $1, max_kernels = $2: $5 (w: $w; tie: $t)" "[ '$w' = '$3' ] && [ '$t' = '$4' ]"
}
case_ 0.05 10 "3 2 1 0 " "0 2 3 1 4 " "every kernel over 5%, hottest first, equal shares by name"
case_ 0.125 10 "3 2 1 " "0 2 3 " "a share equal to hot is hot (w's kernel 1 at 2/16)"
case_ 0.1250001 10 "3 2 " "0 2 3 " "just above a share: that kernel is not"
case_ 0.5 10 "3 " "" "one kernel at exactly a half"
case_ 0.5000001 10 "" "" "none above a half"
case_ 0.0625 10 "3 2 1 0 " "0 2 3 1 4 " "the coldest Triton kernel at exactly 1/16"
case_ 0.05 2 "3 2 " "0 2 " "max_kernels 2 keeps the two hottest"
case_ 0.05 1 "3 " "0 " "max_kernels 1 keeps the hottest"
case_ 0.05 3 "3 2 1 " "0 2 3 " "max_kernels 3: three"
case_ 0.05 0 "" "" "max_kernels 0: none"
case_ 0.125 2 "3 2 " "0 2 " "hot and max_kernels together"
check "no profile ran again for hot or max_kernels" "[ $(profiles) -eq 0 ]"

# learning: what verify records in .kopt/memory.jsonl
mkdir learn && cd learn && mkdir models
printf '# model lose\n# sim: kernels 1\n# sim: speedup 0.9\nimport torch\n' > models/lose.py
printf '# model win\n# sim: kernels 1\n# sim: speedup 1.25\nimport torch\n' > models/win.py
cat > test.kopt <<'SPEC'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 3  hot = 0.05  seed = 1  backend = builtin  screen = 0 }
gates strict { seeds = 5  gamma = 1.03  repeats = 10 }
defaults { device = sim  agents = default  gates = strict }
model lose { source = "models/lose.py" }
model win { source = "models/win.py" }
target all = [lose, win]
default all
SPEC
set +e
"$KOPTMAKE" > out 2> err
st=$?
set -e
check "the learning build succeeds (exit $st)" "[ $st -eq 0 ] && [ -s .kopt/memory.jsonl ]"
nv_lose=$(grep -c '^verify lose ' ../sim.log || true)
nv_win=$(grep -c '^verify win ' ../sim.log || true)
verdicts() { sed -n 's/^Verdicts of all candidates: //p' "kopt-out/$1/report.md"; }
check "lose: $nv_lose candidates verified, all lost at the perf gate ($(verdicts lose))" \
	"[ $nv_lose -eq 3 ] && [ '$(verdicts lose)' = 'perf 3;' ]"
check "win: $nv_win candidates verified, all passed ($(verdicts win))" \
	"[ $nv_win -eq 3 ] && [ '$(verdicts win)' = 'pass 3;' ]"
# the lessons: one per verify, in the order they ran; the losses' x is 0
lessons=$(python3 - .kopt/memory.jsonl <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert json.loads(lines[0]) == {"kopt-memory": 1}
out = {}
for l in lines[1:]:
    o = json.loads(l)
    out.setdefault(o["v"], []).append(o["x"])
print(len(out.get("pass", [])), len(out.get("fail", [])),
      all(x == 0 for x in out.get("fail", [])), all(abs(x - 1.25) < 0.01 for x in out.get("pass", [])))
EOF
)
check "memory.jsonl: 3 wins (at 1.25x) and 3 losses (x 0), one lesson per verify ($lessons)" \
	"[ '$lessons' = '3 3 True True' ]"
cd ..

echo "1..$n"
