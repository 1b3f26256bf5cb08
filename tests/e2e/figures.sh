#!/bin/sh
# tests/e2e/figures.sh: the report's headline figures from known inputs.
# With the simulated worker (a TEST DOUBLE) each model's times are set by
# its "# sim:" lines (steady: no jitter; time: a call's nanoseconds; host:
# the host's share; kernels 1: one Triton kernel with two thirds of the
# device time; speedup: every candidate that much faster; fast VARIANT: a
# variant's compiled code that much faster), so every figure follows from
# them by hand. This test works each one out from the knobs alone (the
# arithmetic is below, in awk) and compares it with report.json and
# report.md: the speedups, the geometric mean (logs, divided by n), the
# geometric mean over max-autotune (only the models that have that
# variant), fast_p at each p (strictly faster than p), the host-time list
# (a fifth of a call or more) and GPU-minutes (the workers' seconds per
# model, to a tenth of a minute). A winner at exactly gamma = 1 has its
# point on the roofline. Every field of report.json is named in
# koptmake(1), which is what its readers read. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" figures
umask 022
mkdir models
# model NAME HOST CANDIDATE_SPEEDUP [AUTOTUNE_SPEED]
mk() {
	printf '# model %s\n# sim: steady\n# sim: time 100000\n# sim: kernels 1\n# sim: host %s\n# sim: speedup %s\n' \
		"$1" "$2" "$3" > "models/$1.py"
	[ -z "${4:-}" ] || printf '# sim: fast autotune %s\n' "$4" >> "models/$1.py"
	printf 'import torch\n' >> "models/$1.py"
}
mk two 0.25 1.5 2       # winners in both variants; autotune twice as fast
mk one 0.25 1.5         # winners; no max-autotune variant
mk slowat 0.2 0.9 0.8   # no winner; autotune slower: the baseline stays
mk fastat 0.1 0.9 2     # no winner; autotune twice as fast: chosen
# two's kernels, first to last, span 0.9 of a call (the GPU idle between
# them while the host launches): the device figures divide the time of a
# call queued behind a spin, its kernels back to back (their sum), not that span
sed -i 's/^import torch$/# sim: span 0.9\nimport torch/' models/two.py
cat > test.kopt <<'SPEC'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model two { source = "models/two.py"  variant default { }  variant autotune { mode = "max-autotune-no-cudagraphs" } }
model one { source = "models/one.py" }
model slowat { source = "models/slowat.py"  variant default { }  variant autotune { mode = "max-autotune-no-cudagraphs" } }
model fastat { source = "models/fastat.py"  variant default { }  variant autotune { mode = "max-autotune-no-cudagraphs" } }
target all = [two, one, slowat, fastat]
default all
SPEC

set +e
"$KOPTMAKE" > out 2> err
status=$?
set -e
check "the build succeeds (exit $status)" "[ $status -eq 0 ] && [ -s kopt-out/all/report.json ]"
[ $status -eq 0 ] || sed 's/^/# /' err

# every field of report.json, of its models, their bounds and measured,
# is named in koptmake(1) (.I or .IR): the fields a reader reads
python3 - kopt-out/all/report.json "$top_srcdir/man/koptmake.1" > undocumented <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
named = set(re.findall(r"^\.IR? (\w+)", open(sys.argv[2]).read(), re.M))
fields = set(d) | set(d["measured"])
for m in d["models"]:
    fields |= set(m) | set(m["measured"])
    for b in m["bounds"]:
        fields |= set(b)
if fields - named:
    print(" ".join(sorted(fields - named)))
EOF
check "every field of report.json is in koptmake(1)" "[ ! -s undocumented ]"
[ ! -s undocumented ] || sed "s/^/# missing from koptmake(1): /" undocumented

# report.json as "model field value" lines, and the target's figures
python3 - kopt-out/all/report.json > got <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["models"]:
    for k in ("speedup", "speedup_vs_max_autotune", "host_share", "baseline_ns", "optimized_ns", "max_autotune_ns",
              "gpu_minutes", "device_speedup", "device_speedup_vs_max_autotune"):
        v = m.get(k)
        print(m["model"], k, "null" if v is None else repr(float(v)))
for k in ("geomean_speedup", "geomean_speedup_vs_max_autotune"):
    print("all", k, repr(float(d[k])))
for p, v in d["fast_p"].items():
    print("all", "fast_" + p, repr(float(v)))
EOF
get() { awk -v m="$1" -v k="$2" '$1 == m && $2 == k { print $3 }' got; }

# The figures by hand. T = 100 us a call; the one Triton kernel has two
# thirds of the device time, (1 - host) T; a winner F times faster saves
# k (1 - 1/F) of a call. A variant's compiled code G times faster takes
# T / G. A variant is chosen over the first when faster by gamma (1.03).
#   two:    default T -> T - T/2 (1 - 1/1.5) = 5T/6; autotune T/2 -> 5T/12
#           chosen: speedup 12/5; over max-autotune (T/2) / (5T/12) = 6/5
#   one:    T -> 5T/6: speedup 6/5; no max-autotune variant
#   slowat: no winner (0.9x); autotune T/0.8 is slower: the baseline, 1;
#           over max-autotune 1.25T / T = 5/4
#   fastat: no winner; autotune T/2 beats T by gamma: speedup 2; 1 over it
expect=$(awk 'BEGIN {
	T = 100000
	k = (1 - 0.25) * T * 2 / 3
	o = T - k * (1 - 1 / 1.5)
	sp["two"] = T / (o / 2); at["two"] = (T / 2) / (o / 2)
	sp["one"] = T / o; at["one"] = "null"
	sp["slowat"] = 1; at["slowat"] = (T / 0.8) / T
	sp["fastat"] = 2; at["fastat"] = 1
	n = 0; ls = 0; na = 0; la = 0
	for (m in sp) { n++; ls += log(sp[m]); if (at[m] != "null") { na++; la += log(at[m]) } }
	split("1 1.03 1.5 2", ps, " ")
	for (i = 1; i <= 4; i++) { c = 0; for (m in sp) if (sp[m] > ps[i] + 0) c++; fp[ps[i]] = c / n }
	printf "two %.17g %.17g\none %.17g null\nslowat %.17g %.17g\nfastat %.17g %.17g\n", sp["two"], at["two"], sp["one"], sp["slowat"], at["slowat"], sp["fastat"], at["fastat"]
	printf "geomean %.17g\ngeomean_at %.17g\n", exp(ls / n), exp(la / na)
	for (i = 1; i <= 4; i++) printf "fast_%s %.17g\n", ps[i], fp[ps[i]]
}')
want() { printf '%s\n' "$expect" | awk -v k="$1" -v c="${2:-2}" '$1 == k { print $c }'; }
# equal within 1e-9 relative (the worker's times go through JSON and a median)
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(a != "" && b != "" && d <= 1e-9 * s + 1e-12) }'; }

for m in two one slowat fastat; do
	check "$m: speedup $(get $m speedup), by hand $(want $m)" "close '$(get $m speedup)' '$(want $m)'"
done
check "two: over max-autotune $(get two speedup_vs_max_autotune), by hand $(want two 3)" \
	"close '$(get two speedup_vs_max_autotune)' '$(want two 3)'"
check "slowat: over max-autotune $(get slowat speedup_vs_max_autotune), by hand 1.25" \
	"close '$(get slowat speedup_vs_max_autotune)' '$(want slowat 3)'"
check "fastat: over max-autotune $(get fastat speedup_vs_max_autotune), by hand 1" \
	"close '$(get fastat speedup_vs_max_autotune)' 1"
check "one: no max-autotune variant, no figure over it" \
	"[ '$(get one speedup_vs_max_autotune)' = null ] && [ '$(get one max_autotune_ns)' = null ]"
# In device time (the profiles' calls queued behind a spin, the kernels
# back to back: (1 - host) of a call, where two's span is 0.9 of it; a
# winner's saving, the stitch's, is the kernels'):
#   two:    default 3T/4; autotune 3T/8 less (T/2 - 5T/12) = 7T/24:
#           18/7, and 9/7 over max-autotune
#   one:    3T/4 over 3T/4 - T/6 = 7T/12: 9/7
#   slowat: the baseline kept: 1; max-autotune (T/0.8)(0.8) = T over 0.8T: 5/4
#   fastat: 0.9T over 0.45T: 2; 1 over max-autotune
for m in two:18/7:9/7 one:9/7:null slowat:1:5/4 fastat:2:1; do
	dm=${m%%:*}; f=${m#*:}; d=${f%%:*}; a=${f#*:}
	dv=$(awk "BEGIN { printf \"%.17g\", $d }"); av=null
	[ "$a" = null ] || av=$(awk "BEGIN { printf \"%.17g\", $a }")
	check "$dm: speedup in device time $(get $dm device_speedup), by hand $d; over max-autotune $(get $dm device_speedup_vs_max_autotune), $a" \
		"close '$(get $dm device_speedup)' '$dv' && { [ '$av' = null ] && [ '$(get $dm device_speedup_vs_max_autotune)' = null ] || close '$(get $dm device_speedup_vs_max_autotune)' '$av'; }"
done
check "two: baseline 100 us, optimized 5T/12, max-autotune T/2" \
	"close '$(get two baseline_ns)' 100000 && close '$(get two optimized_ns)' $(awk 'BEGIN { printf "%.17g", 100000 * 5 / 12 }') && close '$(get two max_autotune_ns)' 50000"
check "geometric mean $(get all geomean_speedup): exp of the mean log over 4 models, by hand $(want geomean)" \
	"close '$(get all geomean_speedup)' '$(want geomean)'"
check "geometric mean over max-autotune $(get all geomean_speedup_vs_max_autotune): the 3 models that have it, by hand $(want geomean_at)" \
	"close '$(get all geomean_speedup_vs_max_autotune)' '$(want geomean_at)'"
for p in 1 1.03 1.5 2; do
	check "fast_$p $(get all fast_$p): models strictly faster than $p, by hand $(want fast_$p)" \
		"close '$(get all fast_$p)' '$(want fast_$p)'"
done

# report.md says the same, rounded as printed
md=kopt-out/all/report.md
g=$(awk -v x="$(want geomean)" 'BEGIN { printf "%.3f", x }')
ga=$(awk -v x="$(want geomean_at)" 'BEGIN { printf "%.3f", x }')
check "report.md: 'Geometric mean speedup: ${g}x over 4 models.'" "grep -qx 'Geometric mean speedup: ${g}x over 4 models\\.' $md"
check "report.md: the mean over max-autotune, ${ga}x over 3 models" \
	"grep -qx 'Geometric mean speedup over max-autotune-no-cudagraphs: ${ga}x over the 3 models that have that variant\\.' $md"
rows=$(sed -n '/^| p | fast_p |$/,/^$/p' $md | grep '^| [0-9]' | tr -d ' ' | tr '\n' ' ')
check "report.md: the fast_p table ($rows)" "[ '$rows' = '|1|0.750| |1.03|0.750| |1.5|0.500| |2|0.250| ' ]"
# the rows: variant, baseline, max-autotune and optimized (us), speedup, vs max-autotune, verdict
row() { grep -m1 "^| $1 | " $md | awk -F'|' '{ gsub(/ /, ""); print $3 "," $4 "," $5 "," $6 "," $7 "," $8 "," $9 }'; }
check "report.md: two's row: $(row two)" "[ '$(row two)' = 'autotune,100.000,50.000,41.667,2.400x,1.200x,optimized' ]"
check "report.md: one's row: $(row one)" "[ '$(row one)' = 'default,100.000,-,83.333,1.200x,-,optimized' ]"
check "report.md: slowat's row: $(row slowat)" "[ '$(row slowat)' = 'default,100.000,125.000,100.000,1.000x,1.250x,baseline' ]"
check "report.md: fastat's row: $(row fastat)" "[ '$(row fastat)' = 'autotune,100.000,50.000,50.000,2.000x,1.000x,optimized' ]"
# the models' own reports: the chosen variant's times, each variant's stitch, the candidates
check "two's report: 100 us -> 5T/12 (41.667 us), 2.400x, with autotune" \
	"grep -qx 'Optimized (variant autotune): 100\\.000 us -> 41\\.667 us per call, speedup 2\\.400x\\.' kopt-out/two/report.md"
# the default variant, at T, cannot beat autotune's T/2 even with its
# kernel at its bound (T less two thirds of 3T/4 at 31% of the copy
# bandwidth: 65.6 us): its kernel gets no candidates
check "two's report: autotune's stitch T/2 -> 5T/12; the default variant's kernel gets no candidates, and why" \
	"grep -q '^| default | fail | 100\\.000 | 100\\.000 | 1 | no winner: the compiled baseline (no candidates: with its hot kernels at their bounds it would take 65\\.6 us per call, and autotune takes 50\\.0 us (over gamma 1\\.03)) |' kopt-out/two/report.md && grep -q '^| autotune | pass | 50\\.000 | 41\\.667 | 1 | ' kopt-out/two/report.md"
check "two's report: 2 candidates of autotune's kernel, the best 1.5x" \
	"[ \$(grep -c '^triton_red_fused__softmax_0 (variant autotune): 2 candidates, the best at c[01] (1\\.500x)\\.\$' kopt-out/two/report.md) -eq 1 ]"
check "slowat's report: the baseline kept, each variant without a winner says so" \
	"grep -qx 'Baseline kept: no verified winner survived stitching (100\\.000 us per call)\\.' kopt-out/slowat/report.md && grep -qx '| default | fail | 100\\.000 | 100\\.000 | 1 | no winner: the compiled baseline |' kopt-out/slowat/report.md && grep -qx '| autotune | fail | 125\\.000 | 125\\.000 | 1 | no winner: the compiled baseline |' kopt-out/slowat/report.md"
check "speedup.svg: the one model whose baseline was kept (slowat) has the note, the optimized ones none" \
	"[ \$(grep -c '[0-9]x baseline kept</text>' kopt-out/all/speedup.svg) -eq 1 ]"
# a profile's times (T = 100 us, a quarter of it the host's; autotune's T/2)
check "two's profile.md: the model's, the device's (the span) and the kernels' times per call, the kernels' share of the span, a queued call's" \
	"grep -qx 'Model time per call: 100\\.000 us; device time per call: 90\\.000 us; sum of kernel times: 75\\.000 us (83\\.3% of device time); queued behind a spin, its kernels back to back: 75\\.000 us\\.' kopt-out/two/profile.md &&
	 grep -qx 'Model time per call: 50\\.000 us; device time per call: 45\\.000 us; sum of kernel times: 37\\.500 us (83\\.3% of device time); queued behind a spin, its kernels back to back: 37\\.500 us\\.' kopt-out/two/profile-autotune.md"
check "two's profile.md: the bound, its kernels' part and the host's, and the model's time over it" \
	"grep -qx 'Bound: 65\\.607 us (the kernels at their bounds, 40\\.607 us, and the host'\\''s 25\\.000 us); the model'\\''s time is 1\\.52x its bound\\.' kopt-out/two/profile.md"
check "outputs are written 0644 (umask 022)" "[ \$(stat -c %a $md) = 644 ] && [ \$(stat -c %a kopt-out/two/report.md) = 644 ]"

# host time: listed at a fifth of a call or more (0.25, 0.25, exactly 0.2), not at 0.1
for m in two one slowat fastat; do
	check "$m: host share $(get $m host_share)" "close '$(get $m host_share)' $(sed -n 's/^# sim: host //p' models/$m.py)"
done
hosts=$(sed -n '/^## Host time$/,/^## /p' $md | sed -n 's/^| \([a-z]*\) | [a-z]* | [0-9.]* | [0-9.]* | \([0-9]*\)% | \([-0-9.x]*\) |$/\1=\2:\3/p' | sort | tr '\n' ' ')
check "report.md lists the models whose host takes a fifth or more ($hosts)" "[ '$hosts' = 'one=25:1.286x slowat=20:1.000x two=25:- ' ]"

# A stitch that fails drops the winner with the smallest kernel speedup and
# tries again: two kernels of 2/5 of the device time each (3T/4), winners
# 1.2x and 1.5x; with both the stitch fails ("# sim: clash"); without the
# 1.2x one it passes: T - (3T/4)(2/5)(1 - 1/1.5) = 0.9 T, 1.111x (T = 1 ms:
# both kernels well under the copy bandwidth, so neither is left alone)
# sub DIR MODEL SIM_LINES MODEL_BLOCK [SED [DELAY_MS]]: a build of one
# model in DIR (cd'd into; the spec's devices, agents and gates from
# test.kopt above, edited by the sed expression SED), each of the worker's
# answers DELAY_MS late; its exit in $status
sub() {
	mkdir "$1" && cd "$1" && mkdir models
	printf '# model %s\n%bimport torch\n' "$2" "$3" > "models/$2.py"
	sed -e "${5:-p;d}" ../test.kopt | sed -e '/^model /,$d' > test.kopt
	printf '%s\ntarget all = [%s]\ndefault all\n' "$4" "$2" >> test.kopt
	set +e
	KOPT_SIM_DELAY_MS=${6:-} "$KOPTMAKE" > out 2> err
	status=$?
	set -e
}
sub clash c '# sim: steady\n# sim: time 1000000\n# sim: host 0.25\n# sim: kernels 2\n# sim: reductions\n# sim: speedup 1.2 1.5\n# sim: clash\n' \
	'model c { source = "models/c.py" }'
check "a failing stitch drops its weakest winner (exit $status): 1000 us -> 900 us, 1.111x" \
	"[ $status -eq 0 ] && grep -qx 'Optimized (variant default): 1000\\.000 us -> 900\\.000 us per call, speedup 1\\.111x\\.' kopt-out/c/report.md"
check "... in the second attempt, with the 1.5x kernel alone" \
	"grep -q '^| default | pass | 1000\\.000 | 900\\.000 | 2 | ' kopt-out/c/report.md && [ \$(grep -c '^| triton_red_fused__softmax_[01] | .* | 1\\.[0-9]*x |\$' kopt-out/c/report.md) -eq 1 ] && grep -q '^| triton_red_fused__softmax_1 | .* | 1\\.500x |\$' kopt-out/c/report.md"
cd ..

# The device figure follows the chosen variant, wherever it stands among
# the variants: three, the middle one chosen (autotune, twice as fast; the
# third, slow, half as fast), no winner: 2 in device time, 1 over
# max-autotune (itself)
sub mid m '# sim: steady\n# sim: time 100000\n# sim: kernels 1\n# sim: speedup 0.9\n# sim: fast autotune 2\n# sim: fast slow 0.5\n' \
	'model m { source = "models/m.py"  variant default { }  variant autotune { mode = "max-autotune-no-cudagraphs" }  variant slow { cudnn_benchmark = true } }'
mid=$(python3 -c 'import json; m=json.load(open("kopt-out/all/report.json"))["models"][0]; print(m["variant"], m["device_speedup"], m["device_speedup_vs_max_autotune"])' 2>/dev/null)
mv_=$(echo "$mid" | cut -d' ' -f1); md_=$(echo "$mid" | cut -d' ' -f2); ma_=$(echo "$mid" | cut -d' ' -f3)
check "three variants, the middle one chosen: its device figure, 2 and 1 ($mid)" \
	"[ $status -eq 0 ] && [ '$mv_' = autotune ] && close '$md_' 2 && close '$ma_' 1"
cd ..

# GPU-minutes: the seconds the workers spent on a model's steps (the
# build log's durations), to a tenth of a minute. Each request of this
# build takes 550 ms or more, six of them: 3.3 s, 0.1 minutes, and any one
# step left out of the sum would make it 0.0
sub gm slow '# sim: kernels 1\n' 'model slow { source = "models/slow.py" }' 's/budget = 2/budget = 3/' 550
steps=$(awk -F'\t' '$3 == "ok" && $4 ~ /^(capture|profile|verify|stitch)$/ { n++ } END { print n + 0 }' .kopt/log)
ms=$(awk -F'\t' '$3 == "ok" && $4 ~ /^(capture|profile|verify|stitch)$/ { s += $2 } END { print s + 0 }' .kopt/log)
gm=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["models"][0]["gpu_minutes"])' kopt-out/all/report.json)
# the log's durations end a little after the step's worker time: either side of a rounding edge
lo=$(awk -v s="$ms" -v n="$steps" 'BEGIN { x = (s - 50 * n) / 6000; printf "%.1f", int(x + 0.5) / 10 }')
hi=$(awk -v s="$ms" -v n="$steps" 'BEGIN { x = s / 6000; printf "%.1f", int(x + 0.5) / 10 }')
check "GPU-minutes: $steps worker steps took $ms ms, report.json says $gm ($lo..$hi by hand)" \
	"[ $status -eq 0 ] && [ $steps -eq 6 ] && [ $ms -ge 3300 ] && awk 'BEGIN { exit !($gm == $lo || $gm == $hi) }'"
check "report.md shows the same GPU-minutes" "grep -q '^| slow | .* | $(awk -v x="$gm" 'BEGIN { printf "%.1f", x }') |$' kopt-out/all/report.md"
# a report that cannot be written fails the build
rm -f kopt-out/all/report.md
mkdir kopt-out/all/report.md
set +e
"$KOPTMAKE" -B > out 2> err
status=$?
set -e
check "a report.md that cannot be written: exit 1, the report step says so" \
	"[ $status -eq 1 ] && grep -q 'report all failed: cannot write the report' err"
cd ..

# where a capture's seconds went: the worker's own parts (the simulated
# worker's: 0.5 s loading, a 1.5 s compile, 0.25 s around it and 0.25 s
# after it, 2.5 s in all) and, outside them, the rest of the step's time. Each answer waits
# 2.6 s here, so the capture step takes 2.6 s or more, and what is
# outside the worker's 2.5 s is the step's time less 2.5
sub parts p '# sim: kernels 1\n' 'model p { source = "models/p.py" }' 's/budget = 2/budget = 0/' 2600
row=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["models"][0]["capture"][0]; print(r["capture_s"], r["compile_s"], r["load_s"], r["around_s"], r["after_s"], r["outside_s"])' kopt-out/all/report.json 2>/dev/null || echo)
cap=$(echo "$row" | cut -d' ' -f1); out_=$(echo "$row" | cut -d' ' -f6)
check "a capture's parts: the step's seconds, its 1.5 s compile, 0.5 s loading, 0.25 s around it, 0.25 s after, the rest outside the worker ($row)" \
	"[ $status -eq 0 ] && [ \"\$(echo '$row' | cut -d' ' -f2-5)\" = '1.5 0.5 0.25 0.25' ] && awk 'BEGIN { exit !($cap >= 2.6 && $cap < 10 && ($out_ - ($cap - 2.5))^2 < 1e-6) }'"
check "report.md's capture row shows them" \
	"grep -q \"^| default | $(awk -v x="$cap" 'BEGIN { printf "%.1f", x }') | 1.5 | .* | 0.5 | 0.2 | 0.2 | $(awk -v x="$out_" 'BEGIN { printf "%.1f", x }') | 0.0 |\$\" kopt-out/p/report.md"
cd ..

# gamma = 1: a winner exactly as fast as the baseline (speedup 1.000x) is a
# winner, and the roofline shows it on its kernel's baseline point (flops:
# a kernel's FLOPs place it on the roofline)
sub even e '# sim: steady\n# sim: kernels 1\n# sim: flops 8\n# sim: speedup 1.0\n' 'model e { source = "models/e.py" }' \
	's/gamma = [0-9.]*/gamma = 1.0/'
check "gamma 1.0, a candidate exactly as fast: a winner at 1.000x (exit $status)" \
	"[ $status -eq 0 ] && grep -q '^| triton_red_fused__softmax_0 | .* | 1\\.000x |\$' kopt-out/e/report.md"
check "... and the roofline has its point, marked optimized" \
	"[ \$(grep -c '<circle class=\"point after\"' kopt-out/all/roofline.svg) -eq 1 ] && grep -q '<title>triton_red_fused__softmax_0: .* (optimized)</title>' kopt-out/all/roofline.svg"
cd ..

echo "1..$n"
