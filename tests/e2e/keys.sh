#!/bin/sh
# tests/e2e/keys.sh: every parameter that enters a step's key, changed one
# at a time in the spec: exactly the steps that depend on it run again, by
# kind and path, and the rest do not. With the simulated worker (a TEST
# DOUBLE). For each change, `-n` must list the expected steps and the build
# must run the expected ones (the build log's new records); then the spec
# goes back and nothing runs. Where a capture runs again, -n cannot know
# its output yet and lists its dependents up to the report; the build then
# stops where the output is unchanged (early cutoff); so with a profile or a
# screen (a hot kernel's launch configs timed alone, before its chain). The
# profile keys the baseline check's seeds and tolerances; a screen keys the
# model file, the variant, the tolerances, the precision and the seed, and
# the starts other variants' captures give it. Doubles are keyed to
# the last bit: gamma 1.0300000000000001 is the double 1.03 and reruns
# nothing; 1.0300000000000002, the next double, reruns the verifies (and
# the screened kernels' first proposals).
# Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" keys
mkdir models
# one reduction kernel each (a fixed name), every candidate 1.2x: all pass
printf '# model m\n# sim: kernels 1\n# sim: reductions\n# sim: speedup 1.2\nimport torch\n' > models/m.py
printf '# kernel k\n# sim: kernels 1\n# sim: reductions\nimport torch\n' > models/k.py
spec() {
	cat > test.kopt <<SPEC
device sim { gpus = ${GPUS:-1}  timeout = ${TIMEOUT:-60s} }
agents default { budget = ${BUDGET:-2}  hot = ${HOT:-0.05}  max_kernels = ${MAXK:-10}  seed = ${SEED:-1}  backend = builtin ${AGX:-} }
gates strict { seeds = ${SEEDS:-5}  atol = ${ATOL:-1e-4}  rtol = ${RTOL:-1e-4}  atol_half = ${ATOLH:-1e-2}  rtol_half = ${RTOLH:-1e-2}  fp64_fallback = ${FP64:-true}  gamma = ${GAMMA:-1.03}  repeats = ${REPEATS:-10}  precision = ${PREC:-strict} }
defaults { device = sim  agents = default  gates = strict }
${KGATESBLOCK:-}
model m { source = "models/m.py"  variant default { ${DEFOPT:-} }  variant autotune { mode = "${MODE:-max-autotune-no-cudagraphs}" ${VAROPT:-} } }
${KIND:-model} k { source = "models/k.py" ${KGATES:-} }
target ${TARGET:-all} = [m, k]
default ${TARGET:-all}
SPEC
}
# the steps -n lists and the steps a build ran (the log's records after $1), sorted, joined by ;
dry() { "$KOPTMAKE" -n 2> err | grep -v ' would run' | sort | tr '\n' ';'; }
ran() { tail -n "+$(($1 + 1))" .kopt/log | awk -F'\t' '{ print $4, $5 }' | sort | tr '\n' ';'; }
# change DESCRIPTION WANT_N WANT_RAN: the spec as the environment now says
change() {
	spec
	got_n=$(dry)
	before=$(wc -l < .kopt/log)
	set +e
	"$KOPTMAKE" > out 2> err
	st=$?
	set -e
	got_ran=$(ran "$before")
	check "$1: -n lists ${2:-nothing}" "[ '$got_n' = '$2' ]"
	[ "$got_n" = "$2" ] || { echo "# -n listed: $got_n"; }
	check "$1: the build runs ${3:-nothing} (exit $st)" "[ $st -eq 0 ] && [ '$got_ran' = '$3' ]"
	[ "$got_ran" = "$3" ] || { echo "# ran: $got_ran"; sed 's/^/# /' err; }
}
back() {
	spec
	check "$1 back: nothing runs" "[ '$(dry)' = '' ]"
}

spec
set +e
"$KOPTMAKE" > out 2> err
st=$?
set -e
check "the first build succeeds (exit $st)" "[ $st -eq 0 ] && [ -s kopt-out/all/report.json ]"
check "a second build runs nothing" "[ '$(dry)' = '' ]"
# the graph facts' version keys the first variant's profile alone (the one
# the implementation-space search reads): new facts profile it again only
pkey() { awk -F'\t' -v p="$1" '$4 == "profile" && $5 == p { print $8 }' .kopt/log | tail -1; }
check "the facts' version is in m's first variant's profile key, not in the second's" \
	"pkey m/default | grep -q 'param:facts=' && ! pkey m/autotune | grep -q 'param:facts='"
# how a config is pinned keys the screens and verifies of a variant that
# compiles with coordinate descent on (max-autotune), not the others'
skey() { awk -F'\t' -v k="$1" -v p="$2" '$4 == k && $5 == p { print $8 }' .kopt/log | tail -1; }
check "the pinning's version is in max-autotune's screen and verify keys, not in the default variant's" \
	"skey screen m/autotune/triton_red_fused__softmax_0 | grep -q 'param:pinned=' &&
	 skey verify m/autotune/triton_red_fused__softmax_0/c0 | grep -q 'param:pinned=' &&
	 ! skey screen m/default/triton_red_fused__softmax_0 | grep -q 'param:pinned=' &&
	 ! skey verify m/default/triton_red_fused__softmax_0/c0 | grep -q 'param:pinned='"

K=triton_red_fused__softmax_0
vm() { # verifies (or proposals, $1) of m's variants ($2: default autotune) for candidates $3
	for v in $2; do for c in $3; do printf '%s m/%s/%s/c%s;' "$1" "$v" "$K" "$c"; done; done
}
V=$(vm verify "autotune default" "0 1")
srt() { printf '%s' "$1" | tr ';' '\n' | sed '/^$/d' | sort -u | tr '\n' ';'; }
# gates: every parameter re-keys the verifies and the stitch; repeats and
# fp64_fallback nothing before them, gamma the screened kernels' first
# proposals
GATE_RUN=$(srt "report all;stitch k;stitch m;$(printf 'verify k/default/%s/c0;verify k/default/%s/c1;' $K $K)$V")
PROFILES="profile k/default;profile m/autotune;profile m/default;"
SCREENS="screen k/default/$K;screen m/autotune/$K;screen m/default/$K;"
PROPOSALS=$(srt "$(printf 'propose k/default/%s/c0;propose k/default/%s/c1;' $K $K)$(vm propose "autotune default" "0 1")")
# the tolerances: the profiles' baseline check and the screens' check too
# (-n stops at the profiles: what follows them is not known before they run)
TOL_N=$(srt "${PROFILES}report all;stitch k;stitch m")
TOL_RUN=$(srt "$PROFILES$SCREENS$GATE_RUN")
# gamma: also each screened kernel's first proposal, which leaves out the
# screen's points not faster alone than gamma (rules/propose.c); -n lists
# the proposals after it too (its output is not known before it runs), the
# build stops where it is unchanged
P0=$(printf 'propose k/default/%s/c0;propose m/autotune/%s/c0;propose m/default/%s/c0;' $K $K $K)
GAMMA_RUN=$(srt "$GATE_RUN$P0")
GAMMA_N=$(srt "$GATE_RUN$PROPOSALS")
GAMMA=1.1 change "gamma 1.03 -> 1.1" "$GAMMA_N" "$GAMMA_RUN"; back gamma
# a gates block of k's own, strict's but for gamma: k's verifies and
# stitch only (the planner serializes a block once and copies it to each
# model that names the same one)
K_RUN=$(srt "report all;stitch k;$(printf 'propose k/default/%s/c0;verify k/default/%s/c0;verify k/default/%s/c1;' $K $K $K)")
K_N=$(srt "$K_RUN$(printf 'propose k/default/%s/c1;' $K)")
KGATESBLOCK='gates other { seeds = 5  atol = 1e-4  rtol = 1e-4  atol_half = 1e-2  rtol_half = 1e-2  fp64_fallback = true  gamma = 1.2  repeats = 10  precision = strict }' \
	KGATES='gates = other' change "k names a gates block of its own (gamma 1.2)" "$K_N" "$K_RUN"; back "k's gates"
GAMMA=1.0300000000000001 change "gamma 1.0300000000000001 (the same double as 1.03)" "" ""
GAMMA=1.0300000000000002 change "gamma 1.0300000000000002 (the next double)" "$GAMMA_N" "$GAMMA_RUN"; back gamma
ATOL=2e-4 change "atol" "$TOL_N" "$TOL_RUN"; back atol
RTOL=2e-4 change "rtol" "$TOL_N" "$TOL_RUN"; back rtol
ATOLH=2e-2 change "atol_half" "$TOL_N" "$TOL_RUN"; back atol_half
RTOLH=2e-2 change "rtol_half" "$TOL_N" "$TOL_RUN"; back rtol_half
# the seeds: the profiles' baseline check, not the screens
SEEDS=4 change "seeds" "$TOL_N" "$(srt "$PROFILES$GATE_RUN")"; back seeds
REPEATS=12 change "repeats" "$GATE_RUN" "$GATE_RUN"; back repeats
FP64=false change "fp64_fallback" "$GATE_RUN" "$GATE_RUN"; back fp64_fallback
# the precision: the screens' check, not the profiles; -n cannot know the
# screens' output, which the first proposals follow
PREC=tf32 change "precision" "$(srt "$SCREENS$PROPOSALS$GATE_RUN")" "$(srt "$SCREENS$GATE_RUN")"; back precision

# a variant's parameters: its capture (whose output is the same here, so
# its profile and proposals do not run), its screen, its verifies, the
# stitch. -n: a model's chains are added once all its variants' profiles
# are in (profile.c), so none is listed while a profile would run
VAR_N=$(srt "capture m/autotune;profile m/autotune;report all;stitch m")
VAR_RUN=$(srt "capture m/autotune;report all;stitch m;screen m/autotune/$K;$(vm verify autotune "0 1")")
# (max-autotune's mode replays CUDA graphs: its kernels get no candidates)
MODE=max-autotune change "variant mode" "$VAR_N" "$(srt "capture m/autotune;report all;stitch m")"; back mode
VAROPT='options = { "triton.persistent_reductions" = false }' change "variant options" "$VAR_N" "$VAR_RUN"; back options
VAROPT='aten_fallback = ["aten.add"]' change "variant aten_fallback" "$VAR_N" "$VAR_RUN"; back aten_fallback
VAROPT='cudnn_benchmark = true' change "variant cudnn_benchmark" "$VAR_N" "$VAR_RUN"; back cudnn_benchmark
# the first variant's parameters the same way: its capture, screen and
# verifies, and the stitch, which keys every variant's parameters. -n: no
# chain is listed while a profile of the model would run (as above)
DEF_N=$(srt "capture m/default;profile m/default;report all;stitch m")
DEF_RUN=$(srt "capture m/default;report all;stitch m;screen m/default/$K;$(vm verify default "0 1")")
DEFOPT='cudnn_benchmark = true' change "the first variant's cudnn_benchmark" "$DEF_N" "$DEF_RUN"; back "the first variant's cudnn_benchmark"

# the model's kind is the capture's (the same output here, so no profile
# runs) and the screen's: a kernel file is not screened, so its first
# proposals are keyed without a screen and its chain runs again
KIND=kernel change "k declared a kernel, not a model" "capture k/default;profile k/default;report all;stitch k;" \
	"$(srt "capture k/default;report all;stitch k;$(printf 'propose k/default/%s/c0;propose k/default/%s/c1;verify k/default/%s/c0;verify k/default/%s/c1;' $K $K $K $K)")"; back kind

# the worker environment (torch's version): the captures run again and
# emit the same kernels, so nothing after them does. -n keys on the
# environment remembered in the cache (koptmake(1)): it cannot know
KOPT_SIM_TORCH=2.12.0+sim change "the worker's torch version" "" "capture k/default;capture m/autotune;capture m/default;"
KOPT_TRUST_ENV=1 KOPT_SIM_TORCH=2.13.0+sim change "KOPT_TRUST_ENV=1: the remembered environment" "" ""
back "the environment"

# the seed keys every step. A kernel's candidate 0 follows its variant's
# screen; a later candidate has one key in both variants (the same kernel,
# agents, index and trajectory here): one proposal runs for both
ALL_N="capture k/default;capture m/autotune;capture m/default;profile k/default;profile m/autotune;profile m/default;report all;stitch k;stitch m;"
ALL_RUN=$(srt "$ALL_N$SCREENS$GATE_RUN$(vm propose default "0 1")$(vm propose autotune 0)$(printf 'propose k/default/%s/c0;propose k/default/%s/c1;' $K $K)")
SEED=2 change "agents seed" "$ALL_N" "$ALL_RUN"; back seed

# budget 2 -> 3: the new candidates only. m's c2 has one key in both
# variants (as c1 above): -n lists both proposals, the build runs one and
# the other takes its result (steps of one key run once in a build)
NEW=$(printf 'propose k/default/%s/c2;verify k/default/%s/c2;%s%s%s' $K $K "$(vm propose "autotune default" 2)" \
	"$(vm verify "autotune default" 2)" "report all;stitch k;stitch m;" | tr ';' '\n' | sort | tr '\n' ';')
NEW_RUN=$(printf 'propose k/default/%s/c2;verify k/default/%s/c2;%s%s%s' $K $K "$(vm propose default 2)" \
	"$(vm verify "autotune default" 2)" "report all;stitch k;stitch m;" | tr ';' '\n' | sort | tr '\n' ';')
BUDGET=3 change "budget 2 -> 3" "$NEW" "$NEW_RUN"; back budget

# candidate paths count in decimal: budget 11 adds c3 .. c10 of each kernel
# (c2 ran for budget 3 above)
BUDGET=11 spec
paths=$(dry | tr ';' '\n' | sed -n "s|^propose k/default/$K/c||p" | sort -n | tr '\n' ' ')
check "budget 11: -n lists k's new proposals c3 .. c10 ($paths)" "[ '$paths' = '3 4 5 6 7 8 9 10 ' ]"
back budget

# the hot selection is made from stored shares: no profile runs
HOT=0.06 change "hot 0.05 -> 0.06 (the same kernels)" "" ""
MAXK=1 change "max_kernels 10 -> 1 (the same kernels)" "" ""
HOT=0.7 change "hot 0.7 (no kernel is hot)" "report all;stitch k;stitch m;" "report all;stitch k;stitch m;"
# no chain, so no verify in the stitch's key: the capture of its first
# (here its only) variant keys it, and k's new bytes run it again
cp models/k.py k.py.orig
printf '# changed\n' >> models/k.py
HOT=0.7 change "k's file, no kernel hot: its capture, profile and stitch" "capture k/default;profile k/default;report all;stitch k;" \
	"capture k/default;profile k/default;report all;stitch k;"
# and the stitch's worker request, the same as before but for the
# capture it stands on, is measured again, not answered from the memo
"$KOPTMAKE" -t why 'stitch k' > why 2>&1 || true
check "k's file, no kernel hot: the stitch's request is measured again (the memo keys its capture)" \
	"grep -q '^  worker requests  *1 measured, 0 answered' why"
grep -q '^  worker requests  *1 measured, 0 answered' why || sed 's/^/# /' why
# no winner: k's output code is its baseline's, the capture's code
check "no kernel hot: k's output_code.py is the baseline's output code" \
	"head -n 1 kopt-out/k/output_code.py | grep -qx '# output code of k (simulated)' && grep -qx 'def call(args):' kopt-out/k/output_code.py"
cp k.py.orig models/k.py
back hot

# the report's key holds the target's name
TARGET=every change "the target's name" "report every;" "report every;"; back target

# not in any key: the device's GPUs and timeout, the LLM budgets
GPUS=2 TIMEOUT=90s change "device gpus and timeout" "" ""
AGX='llm_calls = 5  tokens = 1000' change "agents llm_calls and tokens" "" ""

# the model file's bytes: its whole chain (the simulated kernels' sources
# hold the file's hash), and nothing of k
printf '# changed\n' >> models/m.py
MOD_RUN=$(srt "capture m/autotune;capture m/default;profile m/autotune;profile m/default;report all;stitch m;screen m/autotune/$K;screen m/default/$K;$(vm propose default "0 1")$(vm propose autotune 0)$V")
change "the model file's bytes" "capture m/autotune;capture m/default;profile m/autotune;profile m/default;report all;stitch m;" "$MOD_RUN"

# KOPT_TRUST_ENV=1 keys on the remembered environment, unchecked; a worker
# that starts (k's file changed) and tells of another in its hello: said,
# remembered, and the build planned again with it
printf '# changed\n' >> models/k.py
set +e
KOPT_TRUST_ENV=1 KOPT_SIM_TORCH=2.14.0+sim "$KOPTMAKE" > out 2> err
st=$?
set -e
check "a worker's hello with another environment than the remembered one: said and keyed anew (exit $st)" \
	"[ $st -eq 0 ] && grep -q \"the worker environment of device 'sim' changed; steps keyed on it are keyed anew\" err"
check "... and remembered: trusted again, nothing runs" "[ -z \"\$(KOPT_TRUST_ENV=1 KOPT_SIM_TORCH=2.14.0+sim \"\$KOPTMAKE\" -n 2>/dev/null | grep -v 'nothing to run\|would run')\" ]"

echo "1..$n"
