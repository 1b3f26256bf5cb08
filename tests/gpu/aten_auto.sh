#!/bin/bash
# tests/gpu/aten_auto.sh: an ATen-fallback variant that changes the results
# is rejected by the compiled-baseline check (issue 17's reward-hacking
# case), on the GPU, with koptmake and the real worker. The change is made
# by a TEST DOUBLE (aten_auto.d/sitecustomize.py: aten.sum's fallback sums in
# float16), since a real fallback reproduces eager bit for bit. row_sum
# declares an Inductor variant and one with aten.sum kept out of Inductor:
# the report must call the second wrong and never choose it; the first
# agrees. Prints TAP.
#   aten_auto.sh KOPTMAKE OUTDIR
set -u
K=$(realpath "$1"); O=$2; here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$O" && mkdir -p "$O/models" && cp "$here/aten_auto.d/row_sum.py" "$O/models/"
cat > "$O/aten.kopt" <<'SPEC'
device h200 { gpus = 1  timeout = 10m }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin  auto_variants = false }
gates strict { seeds = 3  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  precision = strict }
defaults { device = h200  agents = default  gates = strict }
model row_sum {
  source = "models/row_sum.py"
  variant inductor { }
  variant aten { aten_fallback = ["aten.sum"] }
}
target all = [row_sum]
SPEC
(cd "$O" && PYTHONPATH=$here/aten_auto.d${PYTHONPATH:+:$PYTHONPATH} "$K" all >build.log 2>&1)
rc=$?
n=0; bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
ok "the build succeeds (exit $rc)" "[ $rc -eq 0 ]"
ok "the test double is in the worker" "grep -q 'aten_auto test double' '$O'/.kopt/workers/worker-*.log"
ok "the Inductor variant agrees with eager" "grep -q '| inductor | agrees |' '$O/kopt-out/row_sum/report.md'"
ok "the ATen-fallback variant is wrong (its check against eager and float64)" "grep -q '| aten | wrong |' '$O/kopt-out/row_sum/report.md'"
ok "the chosen variant is not the wrong one" \
	"python3 -c \"import json; m=json.load(open('$O/kopt-out/all/report.json'))['models'][0]; assert m['variant'] == 'inductor' and m['verdict'] != 'wrong-baseline', m\""
grep '| aten |' "$O/kopt-out/row_sum/report.md" | sed 's/^/# /'
[ $bad -eq 0 ] || tail -20 "$O/build.log" | sed 's/^/# /'
echo "1..$n"
exit $bad
