#!/bin/sh
# tests/e2e/counters.sh: the DRAM bytes of a profile's counters (issue 22,
# item 5) in the bound, the analyst's reason and the profile's table. With
# the simulated worker (a TEST DOUBLE): one Triton kernel of 50 us a call
# moving 2^26 argument bytes (31% of the copy bandwidth, 4300 GB/s), 2
# operations per element over 2^24 elements; "# sim: dram X" says the
# counters saw it move X times its argument bytes (tests/sim-worker.c).
# reread (X = 2) reads something twice: its bound still counts its
# arguments once, and the analyst asks for a single pass first; gather
# (X = 1/4) moved fewer bytes than its arguments: its bound is what it
# moved; plain has no counters; denied's collection failed (a GPU whose
# counters are the administrator's). Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" counters
mkdir models
for m in reread:2 gather:0.25 plain: denied:error; do
	name=${m%%:*} x=${m#*:}
	{
		printf '# model %s\n# sim: steady\n# sim: time 100000\n# sim: kernels 1\n# sim: host 0.25\n# sim: flops 2\n# sim: speedup 1.5\n' "$name"
		[ -z "$x" ] || printf '# sim: dram %s\n' "$x"
		printf 'import torch\n'
	} > "models/$name.py"
done
cat > test.kopt <<'SPEC'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 1  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model reread { source = "models/reread.py" }
model gather { source = "models/gather.py" }
model plain { source = "models/plain.py" }
model denied { source = "models/denied.py" }
target all = [reread, gather, plain, denied]
default all
SPEC

set +e
"$KOPTMAKE" all > out 2> err
status=$?
set -e
check "the build succeeds (exit $status)" "[ $status -eq 0 ]"
[ $status -eq 0 ] || sed 's/^/# /' err

python3 - kopt-out/reread/profile.json kopt-out/gather/profile.json kopt-out/plain/profile.json > got <<'PY'
import json, sys
for path in sys.argv[1:]:
    p = json.load(open(path))["profile"]
    m = path.split("/")[1]
    for r in p["rows"]:
        if r["kind"] == "triton":
            for f in ("dram_bytes", "traffic", "bound_ns", "frac_bound"):
                v = r.get(f)
                print(m, f, "null" if v is None else v)
PY
get() { awk -v m="$1" -v f="$2" '$1 == m && $2 == f { print $3 }' got; }
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(a != "" && b != "" && d <= 1e-6 * s + 1e-9) }'; }
# 2^26 bytes at 4300 GB/s: 15606.7 ns; 2^24: 3901.7 ns
check "reread: the row keeps its DRAM bytes, traffic 2, its bound counts its arguments once" \
	"close '$(get reread dram_bytes)' 134217728 && close '$(get reread traffic)' 2 && close '$(get reread bound_ns)' $(awk 'BEGIN { printf "%.17g", 67108864 / 4300 }')"
check "gather: traffic 1/4, its bound counts the bytes it moved" \
	"close '$(get gather traffic)' 0.25 && close '$(get gather bound_ns)' $(awk 'BEGIN { printf "%.17g", 16777216 / 4300 }') && close '$(get gather frac_bound)' $(awk 'BEGIN { printf "%.17g", 16777216 / 4300 / 50000 }')"
check "plain: no counters, no DRAM bytes, no traffic; its bound its arguments'" \
	"[ '$(get plain dram_bytes)' = null ] && [ '$(get plain traffic)' = null ] && close '$(get plain bound_ns)' $(awk 'BEGIN { printf "%.17g", 67108864 / 4300 }')"
check "profile.md: the DRAM bytes column beside the argument bytes" \
	"grep -q '| bytes | DRAM bytes | GB/s |' kopt-out/reread/profile.md && grep -q '| 67108864 | 134217728 | ' kopt-out/reread/profile.md && grep -q '| 67108864 | - | ' kopt-out/plain/profile.md"
check "profile.md says whether the DRAM bytes were counted, and why not" \
	"grep -q 'DRAM bytes: the GPU.s counters saw 1 of the kernels, in one more call' kopt-out/reread/profile.md &&
	 grep -q 'DRAM bytes: not counted (counters: cuptiProfilerHostInitialize: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)' kopt-out/denied/profile.md &&
	 ! grep -q 'DRAM bytes:' kopt-out/plain/profile.md"
check "profile.json keeps the collection's account" \
	"python3 -c 'import json,sys; c=json.load(open(\"kopt-out/reread/profile.json\"))[\"profile\"][\"counters\"]; sys.exit(not (c[\"passes\"] == 1 and c[\"rows\"] == 1))'"
kernel() { sed -n "s/^verify $1 default \\([^ ]*\\) .*/\\1/p" sim.log | head -n 1; }
check "reread: the analyst asks for a single pass or a fusion, naming the traffic" \
	"k=\$(kernel reread) && [ -n \"\$k\" ] && $KOPTMAKE -t why verify reread/default/\$k/c0 | grep -q \"analysis .*moves 2.00x its arguments' bytes (the GPU's counters), 50.0 us per call at 31% of its bound: a single pass or a fusion first\""
check "gather: the analyst's bound is on the bytes it moved" \
	"k=\$(kernel gather) && [ -n \"\$k\" ] && $KOPTMAKE -t why verify gather/default/\$k/c0 | grep -q 'analysis .*memory-bound (2.00 FLOP per byte), its bound 3.9 us at the copy bandwidth on the bytes it moved (the GPU.s counters), 50.0 us per call (8% of its bound): launch config'"
check "plain: the analyst's reason is the arguments' bound, as without counters" \
	"k=\$(kernel plain) && [ -n \"\$k\" ] && $KOPTMAKE -t why verify plain/default/\$k/c0 | grep -q 'analysis .*memory-bound (0.50 FLOP per byte), its bound 15.6 us at the copy bandwidth, 50.0 us'"
echo "1..$n"
