#!/bin/sh
# tests/gpu_parts.sh: make check-gpu runs in slices (tests/gpu/run.sh): its
# list names each part with what it shows, every part is a function of the
# script and every tests/gpu script that takes OUTDIR is one part's, an
# unknown part stops it with status 2 before anything runs, and a chosen
# part runs alone (deploy_check, which needs no GPU when it has no spec).
# Runs on the CPU. Prints TAP.
top=${top_srcdir:-.}
R=$top/tests/gpu/run.sh
n=0 bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bash "$R" "$tmp/o" list >"$tmp/list" 2>&1
ok "list: 24 parts, each with what it shows" '[ "$(wc -l <"$tmp/list")" -eq 24 ] && ! grep -qv "^[a-z_]*  *[^ ]" "$tmp/list"'
ok "list: smoke first, helion last" '[ "$(head -n 1 "$tmp/list" | cut -d" " -f1)" = smoke ] && [ "$(tail -n 1 "$tmp/list" | cut -d" " -f1)" = helion ]'
missing=
for f in "$top"/tests/gpu/*.sh "$top"/tests/gpu/*.py; do
	b=$(basename "$f"); b=${b%.*}
	case $b in run|wclient|compile_child|check_smoke|record-fixtures|record-modules|acceptance|cost|cudagraphs|deploy|manifest|smoke2) continue ;; esac
	grep -q "\"\$here/$b\.\(sh\|py\)\"" "$R" || missing="$missing $b"
done
ok "every GPU test script is run by a part (missing:$missing)" '[ -z "$missing" ]'
bash "$R" "$tmp/o" smoke nosuch >"$tmp/out" 2>"$tmp/err"; rc=$?
ok "an unknown part: status 2, named, nothing run" '[ $rc -eq 2 ] && grep -q "no part .nosuch." "$tmp/err" && [ ! -s "$tmp/out" ] && [ ! -d "$tmp/o" ]'
GPU_TESTS=deploy_check bash "$R" "$tmp/o" >"$tmp/out" 2>&1; rc=$?
ok "GPU_TESTS picks a part: it alone runs, with its seconds" '[ $rc -eq 0 ] && [ "$(grep -c "^# [a-z_]*: [0-9]* s$" "$tmp/out")" -eq 1 ] && grep -q "^# deploy_check: 0 s$\|^# deploy_check: 1 s$" "$tmp/out" && grep -q "SKIP no KOPT_DEPLOY_SPEC" "$tmp/out"'
ok "the part's whole output in OUTDIR/PART.out, its verdict in OUTDIR/summary.txt" 'grep -q "SKIP no KOPT_DEPLOY_SPEC" "$tmp/o/deploy_check.out" && [ "$(wc -l <"$tmp/o/summary.txt")" -eq 1 ] && grep -q "^deploy_check ok [01] s 20[0-9-]*T" "$tmp/o/summary.txt"'
# a part that fails: FAILED in the summary, status 1 (the part's function
# replaced by one that fails, in a copy of the script)
sed 's/^deploy_check() {.*/deploy_check() { # fails\n\techo "not ok 1 - made to fail"; return 1; }\nnothing() {/' "$R" >"$tmp/run.sh"
bash "$tmp/run.sh" "$tmp/f" deploy_check >"$tmp/out" 2>&1; rc=$?
ok "a failed part: status 1, FAILED in the summary, its output kept" '[ $rc -eq 1 ] && grep -q "^deploy_check FAILED " "$tmp/f/summary.txt" && grep -q "made to fail" "$tmp/f/deploy_check.out" && grep -q "^# deploy_check FAILED$" "$tmp/out"'
# GPU_JOBS: the BESIDE parts only compile and check numbers: their
# scripts ask the worker for captures alone and koptmake for nothing (a
# profile, a screen or a build times kernels or reads the counters)
beside=$(sed -n 's/^BESIDE="\(.*\)"$/\1/p' "$R")
bad_beside=
for p in $beside; do
	body=$(sed -n "/^$p() { #/,/}\$/p" "$R")
	f=$(printf '%s\n' "$body" | grep -o '\$here/[a-z_]*\.\(py\|sh\)' | head -n 1 | sed "s|\\\$here|$top/tests/gpu|")
	if ! grep -q "^$p " "$tmp/list" || [ -z "$body" ] || [ -z "$f" ] || printf '%s\n' "$body" | grep -q '"\$K"' ||
	   grep -qE 'op[\\"]*: *[\\"]*(profile|screen|verify|stitch|race)' "$f"; then bad_beside="$bad_beside $p"; fi
done
ok "the parts run beside others ($beside) are parts, and ask for no profile, screen or build (bad:$bad_beside)" '[ -n "$beside" ] && [ -z "$bad_beside" ]'
# test doubles for five parts, sourced by a copy of the script: the timing
# ones take the GPU (a directory: two at once is an overlap); cheats and
# graph_cache each wait for the other to start, so they pass only side by
# side; with DOUBLE_THREE=1 graph_cache waits for deploy_keys too
cat >"$tmp/doubles.sh" <<'EOF2'
W=${DOUBLE_WAIT:-20}
waitfor() { i=0; while [ ! -e "$D/$1.started" ] && [ $i -lt $((W * 10)) ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$D/$1.started" ]; }
take() { mkdir "$D/gpu" 2>/dev/null || echo "$1" >>"$D/overlap"; touch "$D/$1.started"; }
give() { sleep 0.3; rmdir "$D/gpu" 2>/dev/null; }
smoke() { take smoke; echo "ok 1 - smoke double"; echo "ok 2 - smoke double again"; give; }
space() { take space; echo "ok 1 - space double"; give; p=smoke; }  # a part's own variable
cheats() { take cheats; if waitfor graph_cache; then echo "ok 1 - graph_cache ran beside"; give; else echo "not ok 1 - graph_cache not beside"; give; return 1; fi; }
graph_cache() { touch "$D/graph_cache.started"; [ -z "${DOUBLE_THREE:-}" ] || waitfor deploy_keys || { echo "not ok 1 - deploy_keys not beside"; return 1; }
	waitfor cheats && echo "ok 1 - cheats ran beside"; }
deploy_keys() { touch "$D/deploy_keys.started"; echo "ok 1 - deploy_keys double"; [ -z "${DOUBLE_FAIL:-}" ]; }
EOF2
sed "s|^if \[ \"\$want\" = list \]; then|. \"$tmp/doubles.sh\"\\n&|" "$R" >"$tmp/run2.sh"
five="smoke cheats space graph_cache deploy_keys"
mkdir "$tmp/d1"
D=$tmp/d1 GPU_JOBS=2 bash "$tmp/run2.sh" "$tmp/j2" $five >"$tmp/out" 2>&1; rc=$?
ok "GPU_JOBS=2: a beside part runs while a timing part runs, and passes" '[ $rc -eq 0 ] && grep -q "^ok 1 - graph_cache ran beside" "$tmp/j2/cheats.out" && grep -q "^ok 1 - cheats ran beside" "$tmp/j2/graph_cache.out"'
ok "GPU_JOBS=2: the timing parts one at a time" '[ ! -e "$tmp/d1/overlap" ] && [ -e "$tmp/d1/space.started" ] && [ -e "$tmp/d1/smoke.started" ]'
each=yes
for p in $five; do [ "$(grep -c "^$p ok [0-9]* s " "$tmp/j2/summary.txt")" -eq 1 ] || each="no: $p"; done
ok "GPU_JOBS=2: a summary line for each of the five parts, all ok (a part's variables its own: $each)" '[ "$each" = yes ] && [ "$(wc -l <"$tmp/j2/summary.txt")" -eq 5 ]'
# each part's block is whole on the console: its lines between its header and its seconds
whole=yes
for p in $five; do
	awk -v p="$p" '$0 ~ "^# " p ": [0-9]+ s$" { if (on) { end = 1; exit } } on && /^# [a-z_]+: / { bad = 1 }
		on && /^(not )?ok / { tap++ } $0 ~ "^# " p ": [^0-9]" { on = 1 } END { exit bad || !end || !tap }' "$tmp/out" ||
		whole="${whole%yes}no: $p"
done
ok "GPU_JOBS=2: each part's output printed whole, between its name and its seconds ($whole)" '[ "$whole" = yes ] && [ "$(grep -c "^ok [12] - smoke double" "$tmp/out")" -eq 2 ]'
mkdir "$tmp/d2"
D=$tmp/d2 DOUBLE_THREE=1 GPU_JOBS=3 sh "$tmp/run2.sh" "$tmp/j3" $five >"$tmp/out" 2>&1; rc=$?
ok "GPU_JOBS=3 (under sh): the beside parts in two streams of their own, the timing parts still one at a time" '[ $rc -eq 0 ] && [ ! -e "$tmp/d2/overlap" ] && [ "$(grep -c " ok " "$tmp/j3/summary.txt")" -eq 5 ]'
mkdir "$tmp/d3"
D=$tmp/d3 DOUBLE_WAIT=1 bash "$tmp/run2.sh" "$tmp/j1" $five >"$tmp/out" 2>&1; rc=$?
ok "no GPU_JOBS: one part after another (cheats runs with nothing beside it)" '[ $rc -eq 1 ] && grep -q "^not ok 1 - graph_cache not beside" "$tmp/j1/cheats.out" && grep -q "^cheats FAILED" "$tmp/j1/summary.txt"'
mkdir "$tmp/d4"
D=$tmp/d4 DOUBLE_FAIL=1 GPU_JOBS=2 bash "$tmp/run2.sh" "$tmp/jf" $five >"$tmp/out" 2>&1; rc=$?
ok "GPU_JOBS=2: a beside part that fails gives status 1 and its FAILED line" '[ $rc -eq 1 ] && grep -q "^deploy_keys FAILED" "$tmp/jf/summary.txt" && grep -q "^# deploy_keys FAILED$" "$tmp/out" && [ "$(grep -c " ok " "$tmp/jf/summary.txt")" -eq 4 ]'
for j in x 0 -1 02; do
	GPU_JOBS=$j bash "$R" "$tmp/jbad" smoke >"$tmp/out" 2>"$tmp/err"; rc=$?
	ok "GPU_JOBS=$j: status 2, named, nothing run" '[ $rc -eq 2 ] && grep -q "GPU_JOBS must be a whole number" "$tmp/err" && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/jbad/summary.txt" ]'
done
echo "1..$n"
exit $bad
