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
ok "list: 23 parts, each with what it shows" '[ "$(wc -l <"$tmp/list")" -eq 23 ] && ! grep -qv "^[a-z_]*  *[^ ]" "$tmp/list"'
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
echo "1..$n"
exit $bad
