#!/bin/sh
# tests/e2e/roofline.sh: bounds, leave-alone by the bound, the report's bound
# columns and roofline.svg, from known inputs. With the simulated worker (a
# TEST DOUBLE) each figure follows from the models' "# sim:" lines: a call
# of T = 100 us, a quarter of it the host's; one Triton kernel with two
# thirds of the device time (50 us), moving 2^26 bytes, and a vendor kernel
# with the third (25 us); the copy bandwidth 4300 GB/s, the FP32 peak 50
# TFLOP/s; "flops OPS" gives the Triton kernel OPS x 2^24 FLOPs a launch;
# a row without launches_per_call is plotted as one launch a call.
# This test works each bound out by hand (awk, below) and reads it back
# from profile.json, report.json, report.md, -t why and roofline.svg.
# Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" roofline
mkdir models
# heavy: 146 operations per element: compute-bound at 98% of its bound,
# though at 31% of the copy bandwidth; light: 2 per element, memory-bound
printf '# model heavy\n# sim: steady\n# sim: time 100000\n# sim: kernels 1\n# sim: host 0.25\n# sim: flops 146\n# sim: speedup 1.5\nimport torch\n' > models/heavy.py
# over: 4000 per element, more than the time could hold at the peak: the
# count overstates its FLOPs, so the copy bandwidth alone decides
printf '# model over\n# sim: steady\n# sim: time 100000\n# sim: kernels 1\n# sim: host 0.25\n# sim: flops 4000\n# sim: speedup 1.5\nimport torch\n' > models/over.py
printf '# model light\n# sim: steady\n# sim: time 100000\n# sim: kernels 1\n# sim: host 0.25\n# sim: flops 2\n# sim: speedup 1.5\n# sim: fast autotune 2\nimport torch\n' > models/light.py
# twin: a second variant in max-autotune's mode (as the agents' rewrites
# are) runs four times as fast: a candidate, never max-autotune's baseline
printf '# model twin\n# sim: steady\n# sim: time 100000\n# sim: kernels 1\n# sim: host 0.25\n# sim: flops 2\n# sim: speedup 1.5\n# sim: fast autotune 2\n# sim: fast quick 4\nimport torch\n' > models/twin.py
# nolaunch, zerolaunch: light's kernel in one variant, its row with a null
# and a 0 launches_per_call (not measured): plotted as one launch a call
printf '# model nolaunch\n# sim: steady\n# sim: time 100000\n# sim: kernels 1\n# sim: host 0.25\n# sim: flops 2\n# sim: launches none\nimport torch\n' > models/nolaunch.py
printf '# model zerolaunch\n# sim: steady\n# sim: time 100000\n# sim: kernels 1\n# sim: host 0.25\n# sim: flops 2\n# sim: launches 0\nimport torch\n' > models/zerolaunch.py
cat > test.kopt <<'SPEC'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 1  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model heavy { source = "models/heavy.py" }
model over { source = "models/over.py" }
model light { source = "models/light.py"  variant default { }  variant autotune { mode = "max-autotune-no-cudagraphs" } }
model twin { source = "models/twin.py"  variant default { }  variant autotune { mode = "max-autotune-no-cudagraphs" }
  variant quick { mode = "max-autotune-no-cudagraphs"  options = { "triton.persistent_reductions" = false } } }
target all = [heavy, over, light]
target twins = [twin]
model nolaunch { source = "models/nolaunch.py" }
model zerolaunch { source = "models/zerolaunch.py" }
target launches = [nolaunch, zerolaunch]
default all
SPEC

set +e
"$KOPTMAKE" all twins launches > out 2> err
status=$?
set -e
check "the build succeeds (exit $status)" "[ $status -eq 0 ] && [ -s kopt-out/all/report.json ]"
[ $status -eq 0 ] || sed 's/^/# /' err

# The bounds by hand (ns). A Triton kernel's: max(bytes / 4300, FLOPs /
# 50000), no more than its time; the vendor kernel's and the host's: their
# times; the model's: their sum; its variants' lowest.
eval "$(awk 'BEGIN {
	B = 67108864; E = 16777216
	printf "heavy_flops=%.17g\n", 146 * E
	printf "heavy_kbound=%.17g\n", 146 * E / 50000
	printf "heavy_bound=%.17g\n", 146 * E / 50000 + 25000 + 25000
	printf "heavy_frac=%.17g\n", 146 * E / 50000 / 50000
	printf "light_mem=%.17g\n", B / 4300
	printf "light_bound=%.17g\n", B / 4300 + 25000 + 25000
	# autotune runs twice as fast: its kernels 25 and 12.5 us, its host 12.5
	printf "at_bound=%.17g\n", B / 4300 + 12500 + 12500
	printf "at_over=%.17g\n", 50000 / (B / 4300 + 12500 + 12500)
	printf "heavy_gflops=%.17g\n", 146 * E / 50000
	printf "light_gflops=%.17g\n", 2 * E / 25000
	printf "one_launch_gflops=%.17g\n", 2 * E / 50000
}')"
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(a != "" && b != "" && d <= 1e-6 * s + 1e-9) }'; }

# profile.json: each row's FLOPs and bound, what binds, the model's bound
python3 - kopt-out/heavy/profile.json kopt-out/light/profile.json kopt-out/over/profile.json > got <<'EOF'
import json, sys
for path in sys.argv[1:]:
    p = json.load(open(path))["profile"]
    m = path.split("/")[1]
    for r in p["rows"]:
        k = "triton" if r["kind"] == "triton" else "vendor"
        for f in ("flops", "intensity", "bound_ns", "frac_bound", "binds", "n_regs", "occupancy"):
            v = r.get(f)
            print(m, k, f, "null" if v is None else v)
    for f in ("bound_ns_per_call", "host_ns_per_call", "peak_fp32_gflops"):
        print(m, "model", f, p.get(f))
EOF
get() { awk -v m="$1" -v k="$2" -v f="$3" '$1 == m && $2 == k && $3 == f { print $4 }' got; }
check "heavy: its kernel counts 146 x 2^24 FLOPs in its source ($(get heavy triton flops))" "close '$(get heavy triton flops)' $heavy_flops"
check "heavy: compute binds, 36.5 FLOP per byte ($(get heavy triton binds), $(get heavy triton intensity))" \
	"[ '$(get heavy triton binds)' = compute ] && close '$(get heavy triton intensity)' 36.5"
check "heavy: its kernel's bound is its FLOPs at the peak, $heavy_kbound ns ($(get heavy triton bound_ns)), $(get heavy triton frac_bound) of its time" \
	"close '$(get heavy triton bound_ns)' $heavy_kbound && close '$(get heavy triton frac_bound)' $heavy_frac"
check "the vendor kernel is bound by its own time, 25 us ($(get heavy vendor binds) $(get heavy vendor bound_ns))" \
	"[ '$(get heavy vendor binds)' = measured ] && close '$(get heavy vendor bound_ns)' 25000 && [ '$(get heavy vendor flops)' = null ]"
check "heavy: the model's bound is the kernels' and the host's 25 us, $heavy_bound ns ($(get heavy model bound_ns_per_call))" \
	"close '$(get heavy model bound_ns_per_call)' $heavy_bound && close '$(get heavy model host_ns_per_call)' 25000"
check "light: memory binds, 0.5 FLOP per byte, the bytes at the copy bandwidth ($(get light triton bound_ns))" \
	"[ '$(get light triton binds)' = memory ] && close '$(get light triton intensity)' 0.5 && close '$(get light triton bound_ns)' $light_mem"
check "light: the model's bound, $light_bound ns ($(get light model bound_ns_per_call))" "close '$(get light model bound_ns_per_call)' $light_bound"
check "the profile keeps the measured peak and the compile metadata" \
	"close '$(get light model peak_fp32_gflops)' 50000 && [ '$(get light triton n_regs)' = 32 ] && close '$(get light triton occupancy)' 1"
check "profile.md has the bound line and columns" \
	"grep -q '^Bound: 98.989 us (the kernels at their bounds, 73.989 us, and the host.s 25.000 us); the model.s time is 1.01x its bound' kopt-out/heavy/profile.md && grep -q '| FLOP/byte | bound (us) | binds | of bound | regs | spills | occupancy |' kopt-out/heavy/profile.md"

check "over: FLOPs the time cannot hold: its bound is its time, $(get over triton frac_bound) times over" \
	"[ '$(get over triton binds)' = compute ] && close '$(get over triton bound_ns)' 50000 && close '$(get over model bound_ns_per_call)' 100000"
check "over: its kernel is not left alone, the copy bandwidth decides" \
	"grep -q '^verify over' sim.log"

# leave alone by the bound: heavy's kernel (31% of the copy bandwidth) gets
# no candidate; light's (at 31% of its memory bound) does
check "heavy's kernel is left alone: compute-bound at 98% of its bound, and the report says so" \
	"grep -q 'compute-bound (36.50 FLOP per byte), its bound 49.0 us at the FP32 peak: already at 98% of its bound: left alone' kopt-out/heavy/report.md && ! grep -q '^verify heavy' sim.log"
check "light's kernel gets candidates, its analysis names the memory bound" \
	"grep -q '^verify light' sim.log && $KOPTMAKE -t why verify light/autotune/\$(sed -n 's/^verify light autotune \\([^ ]*\\) .*/\\1/p' sim.log | head -n 1)/c0 | grep -q 'analysis .*memory-bound (0.50 FLOP per byte), its bound 15.6 us at the copy bandwidth'"
# light's default variant takes twice autotune's time; with its hot kernel
# at its bound it would still be slower by gamma: its kernel gets no
# candidates, and the report's row for it says why
check "light's slower variant gets no candidates: even at its kernel's bound, max-autotune is faster; the report says so" \
	"! grep -q '^verify light default' sim.log && grep -q '^verify light autotune' sim.log &&
	 grep -q '| default | fail | .* no winner: the compiled baseline (no candidates: with its hot kernels at their bounds it would take [0-9.]* us per call, and autotune takes [0-9.]* us (over gamma 1.03))' kopt-out/light/report.md"
why=$("$KOPTMAKE" -t why profile heavy/default 2>&1 || true)
check "-t why profile: the roofs, the bound and what binds per kernel" \
	"printf '%s\n' \"\$why\" | grep -q '^profile heavy/default: 100.000 us per call, bound 98.989 us (host 25.000 us): 1.01x its bound' && printf '%s\n' \"\$why\" | grep -q 'bound 48.989 us (compute, 36.5 FLOP per byte): 98% of it; 32 registers, 0 spilled, occupancy 1.00' && printf '%s\n' \"\$why\" | grep -q 'its own bound (not rewritten)' && printf '%s\n' \"\$why\" | grep -q '^  roofs  *copy bandwidth 4300 GB/s, FP32 peak 50.0 TFLOP/s\$'"

# report.json and report.md: the bound, the times over it, max-autotune's
python3 - kopt-out/all/report.json > rep <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["models"]:
    print(m["model"], "bound_ns", m["bound_ns"])
    print(m["model"], "max_autotune_over_bound", m["max_autotune_over_bound"])
    for b in m["bounds"]:
        print(m["model"], b["variant"] + ".bound_ns", b["bound_ns"])
        print(m["model"], b["variant"] + ".baseline_over_bound", b["baseline_over_bound"])
        print(m["model"], b["variant"] + ".max_autotune", b["max_autotune"])
print("all geomean_max_autotune_over_bound", d["geomean_max_autotune_over_bound"])
EOF
python3 - kopt-out/twins/report.json >> rep <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["models"]:
    for k in ("bound_ns", "max_autotune_over_bound", "speedup_vs_max_autotune", "max_autotune_ns"):
        print(m["model"], k, m[k])
    for b in m["bounds"]:
        print(m["model"], b["variant"] + ".max_autotune", b["max_autotune"])
        print(m["model"], b["variant"] + ".baseline_ns", b["baseline_ns"])
EOF
r() { awk -v m="$1" -v k="$2" '$1 == m && $2 == k { print $3 }' rep; }
check "report.json: heavy's bound $(r heavy bound_ns), no max-autotune variant" \
	"close '$(r heavy bound_ns)' $heavy_bound && [ '$(r heavy max_autotune_over_bound)' = None ] && close '$(r heavy default.baseline_over_bound)' $(awk "BEGIN { printf \"%.17g\", 100000 / $heavy_bound }")"
check "report.json: light's variants' bounds ($(r light default.bound_ns), $(r light autotune.bound_ns)), autotune marked" \
	"close '$(r light default.bound_ns)' $light_bound && close '$(r light autotune.bound_ns)' $at_bound && [ '$(r light autotune.max_autotune)' = True ] && [ '$(r light default.max_autotune)' = False ]"
check "report.json: light's bound is its variants' lowest, max-autotune at $(r light max_autotune_over_bound)x it (by hand $at_over)" \
	"close '$(r light bound_ns)' $at_bound && close '$(r light max_autotune_over_bound)' $at_over && close '$(r all geomean_max_autotune_over_bound)' $at_over"
# twin's bound is quick's (its variants' lowest); max-autotune's time over
# it is autotune's, not quick's, whose own time is the optimized one
check "report.json: twin's max-autotune is autotune, not the faster variant in its mode ($(r twin quick.max_autotune))" \
	"[ '$(r twin autotune.max_autotune)' = True ] && [ '$(r twin quick.max_autotune)' = False ] && close '$(r twin max_autotune_ns)' '$(r twin autotune.baseline_ns)'"
check "report.json: twin's ceiling is autotune's time over quick's bound ($(r twin max_autotune_over_bound))" \
	"close '$(r twin max_autotune_over_bound)' $(awk -v a="$(r twin autotune.baseline_ns)" -v b="$(r twin bound_ns)" 'BEGIN { printf "%.17g", a / b }') &&
	 awk -v x='$(r twin max_autotune_over_bound)' 'BEGIN { exit !(x > 1.9) }'"
at2=$(awk -v x="$at_over" 'BEGIN { printf "%.2f", x }')
check "report.md: light's row ends with its bound and max-autotune over it (${at2}x)" \
	"grep '^| light | ' kopt-out/all/report.md | grep -q \"| $(awk -v x="$at_bound" 'BEGIN { printf "%.3f", x / 1000 }') | [0-9.]*x | ${at2}x |\$\""
check "report.md: a Bounds section with each variant, max-autotune named" \
	"grep -q '^## Bounds' kopt-out/all/report.md && grep -q '^| light | autotune (max-autotune) | 40.607 | 12.500 | 50.000 | ${at2}x |' kopt-out/all/report.md && grep -q '^| heavy | default | 98.989 | 25.000 | 100.000 | 1.01x |' kopt-out/all/report.md"
check "report.md: the geometric mean of max-autotune over the bound, over 1 model (issue 44: not '1 models')" \
	"grep -qx \"Geometric mean of max-autotune's time over the bound: $(awk -v x="$at_over" 'BEGIN { printf "%.3f", x }')x over the 1 model that has that variant and a bound.\" kopt-out/all/report.md"
check "report.md: the speedup over max-autotune over 1 model too" \
	"grep -qx 'Geometric mean speedup over max-autotune-no-cudagraphs: [0-9.]*x over the 1 model that has that variant\\.' kopt-out/all/report.md"

# roofline.svg, taken apart: the roofs and one point per hot kernel of the
# chosen variant, before and after
python3 - kopt-out/all/roofline.svg > svg <<'EOF'
import sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
for e in root.iter():
    c = e.get("class") or ""
    if c == "roof-memory":
        print("roof memory", e.get("data-gbps"))
    elif c == "roof-compute":
        print("roof compute", e.get("data-gflops"))
    elif c.startswith("point"):
        print("point", c.split()[1], e.get("data-intensity"), e.get("data-gflops"))
    elif c in ("tick-x", "tick-y"):
        print(c, e.get("data-value"))
EOF
check "roofline.svg: the measured roofs, 4300 GB/s and 50 TFLOP/s" \
	"grep -qx 'roof memory 4300' svg && grep -qx 'roof compute 50000' svg"
check "roofline.svg: decade ticks on both axes" "[ \$(grep -c '^tick-x' svg) -ge 3 ] && [ \$(grep -c '^tick-y' svg) -ge 3 ]"
pts=$(grep '^point' svg | sort | tr '\n' ';')
hp=$(grep '^point before 36.5 ' svg | awk '{ print $4 }')
lp=$(grep '^point before 0.5 ' svg | awk '{ print $4 }')
la=$(grep '^point after 0.5 ' svg | awk '{ print $4 }')
check "roofline.svg: heavy's kernel at 36.5 FLOP per byte, $heavy_gflops GFLOP/s ($pts)" "close '$hp' $heavy_gflops"
check "roofline.svg: light's (its autotune variant, chosen) at 0.5, before and after its 1.5x winner" \
	"close '$lp' $light_gflops && close '$la' $(awk "BEGIN { printf \"%.17g\", $light_gflops * 1.5 }")"
check "roofline.svg: no point for over's kernel, its FLOPs over the peak: three points in all" \
	"! grep -q '^point [a-z]* 1000 ' svg && [ \$(grep -c '^point' svg) -eq 3 ]"
# a hot kernel whose row has no launches_per_call, or 0: its FLOPs over its
# time, as one launch a call, not 0 GFLOP/s
python3 - kopt-out/launches/roofline.svg > svg <<'EOF'
import sys
import xml.etree.ElementTree as ET
for e in ET.parse(sys.argv[1]).getroot().iter():
    c = e.get("class") or ""
    if c.startswith("point before"):
        print(e.get("data-intensity"), e.get("data-gflops"))
EOF
lpts=$(tr '\n' ';' < svg)
check "roofline.svg: a kernel with a null or a 0 launches_per_call at its FLOPs over its time, $one_launch_gflops GFLOP/s ($lpts)" \
	"[ \$(wc -l < svg) -eq 2 ] && close \"\$(sed -n 1p svg | cut -d' ' -f2)\" $one_launch_gflops && close \"\$(sed -n 2p svg | cut -d' ' -f2)\" $one_launch_gflops"
echo "1..$n"
