#!/bin/bash
# tests/gpu/baseline.sh: the compiled baseline against eager on the GPU
# (issue 17). Builds examples/checks (floor_div: Inductor's floor(x / y)
# against ATen's exact floor division) with koptmake and the real worker;
# the report must call it wrong-baseline and claim no speedup. And
# floor_div_scaled: its Inductor variant is faster than the ATen baseline
# and wrong: the check calls it wrong and the model never chooses it.
# Prints TAP.
#   baseline.sh KOPTMAKE OUTDIR
set -u
K=$(realpath "$1"); O=$2; here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$O" && mkdir -p "$O" && cp -r "$here/../../examples/checks/." "$O/"
# on whatever card the machine has: the example's device names the H200,
# and a device whose worker runs on another GPU is refused
sed -i 's/gpu = "[^"]*" *//' "$O/baseline.kopt"
(cd "$O" && "$K" all >build.log 2>&1)
rc=$?
[ $rc -eq 0 ] || tail -20 "$O/build.log" | sed 's/^/# /'
n=0; bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
ok "the build succeeds (exit $rc)" "[ $rc -eq 0 ]"
ok "floor_div is wrong-baseline with no speedup" \
	"python3 -c \"import json; m=json.load(open('$O/kopt-out/all/report.json'))['models'][0]; assert m['verdict'] == 'wrong-baseline' and m['speedup'] is None, m\""
ok "the report's section names it" "grep -q '| floor_div | wrong-baseline |' '$O/kopt-out/all/report.md'"
ok "its profile says eager matches the float64 reference" "grep -q 'eager matches the float64 reference' '$O/kopt-out/floor_div/profile.md'"
ok "floor_div_scaled: its baseline (aten) agrees with eager" "grep -q '| aten | agrees |' '$O/kopt-out/floor_div_scaled/report.md'"
ok "floor_div_scaled: the faster Inductor variant is wrong" "grep -q '| inductor | wrong |' '$O/kopt-out/floor_div_scaled/report.md'"
ok "floor_div_scaled: the chosen variant is not the wrong one" \
	"python3 -c \"import json; m=[m for m in json.load(open('$O/kopt-out/all/report.json'))['models'] if m['model'] == 'floor_div_scaled'][0]; assert m['variant'] != 'inductor' and m['verdict'] != 'wrong-baseline', m\""
python3 - "$O" <<'PY'
import json, sys
for v in ("", "-inductor"):
    try:
        p = json.load(open(f"{sys.argv[1]}/kopt-out/floor_div_scaled/profile{v}.json"))
        print(f"# floor_div_scaled{v or ' (aten)'}: {p['profile']['device_ns_per_call'] / 1e3:.1f} us a call on the device")
    except (OSError, ValueError, KeyError) as e:
        print(f"# floor_div_scaled{v}: no profile ({e})")
PY
echo "1..$n"
exit $bad
