#!/bin/sh
# tests/golden/run-golden.sh: golden tests of the spec language, one TAP
# line per case.
#
# Each tests/golden/cases/NAME.kopt is a case, run as
# `koptmake -t dump -f NAME.kopt` inside tests/golden/cases with a fixed
# environment:
#   NAME.out present: exit 0, stdout is NAME.out, stderr is NAME.err (or empty);
#   NAME.out absent:  exit 2, stdout empty, stderr is NAME.err.
# Files under cases/inc/, cases/models/ and cases/kb/ are fixtures; the
# case bad-spec-folder.kopt is a folder.
#
# A last case checks that the cases are complete: every diagnostic format
# of lang/*.c, lang/*.y and lang/*.l (the literal of each lang_err,
# lang_warn and lang_note call, each printf conversion matching anything,
# %% a percent sign)
# is in the stderr koptmake wrote above. The bare "%s" (syntax errors
# composed in parser.y) is the bad-parse-* cases'; "file is too large"
# (a spec over 1 GiB) and "nested too deeply" (a chain of more than 200
# include files) are produced by tests/unit/lang_test instead.
# KOPT_GOLDEN_UPDATE=1 rewrites the expected files from what koptmake does
# (read every change before committing it).
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
koptmake=${KOPTMAKE:-$(pwd)/koptmake}
cases="$srcdir/tests/golden/cases"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

n=0
failed=0
for f in "$cases"/*.kopt; do
	name=$(basename "$f" .kopt)
	n=$((n + 1))
	(cd "$cases" && env -i PATH="$PATH" LC_ALL=C GOLDEN_SET="from the environment" \
		${VALGRIND:-} "$koptmake" -t dump -f "$name.kopt" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	cat "$tmp/err" >>"$tmp/all-err"
	if [ "${KOPT_GOLDEN_UPDATE:-}" = 1 ]; then
		if [ $rc -eq 0 ]; then
			cp "$tmp/out" "$cases/$name.out"
		else
			rm -f "$cases/$name.out"
		fi
		if [ -s "$tmp/err" ]; then cp "$tmp/err" "$cases/$name.err"; else rm -f "$cases/$name.err"; fi
	fi
	ok=1
	why=
	if [ -f "$cases/$name.out" ]; then
		[ $rc -eq 0 ] || { ok=0; why="exit $rc, want 0"; }
		cmp -s "$tmp/out" "$cases/$name.out" || { ok=0; why="$why stdout differs"; }
		if [ -f "$cases/$name.err" ]; then want="$cases/$name.err"; else want=/dev/null; fi
		cmp -s "$tmp/err" "$want" || { ok=0; why="$why stderr differs"; }
	else
		want="$cases/$name.err"
		[ -f "$want" ] || want=/dev/null
		[ $rc -eq 2 ] || { ok=0; why="exit $rc, want 2"; }
		[ -s "$tmp/out" ] && { ok=0; why="$why stdout not empty"; }
		cmp -s "$tmp/err" "$want" || { ok=0; why="$why stderr differs"; }
	fi
	if [ $ok -eq 1 ]; then
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name:$why"
		if [ -f "$cases/$name.out" ]; then
			diff -u "$cases/$name.out" "$tmp/out" | sed 's/^/# /' | head -n 40
		fi
		diff -u "$want" "$tmp/err" | sed 's/^/# /' | head -n 40
	fi
done

# every diagnostic format was produced by some case above
n=$((n + 1))
calls=$(grep -h 'lang_\(err\|warn\|note\)(' "$srcdir"/lang/*.c "$srcdir"/lang/*.y "$srcdir"/lang/*.l |
	grep -v '^[a-z].*(struct lang_diag')
split=$(printf '%s\n' "$calls" | grep -v '"' || true)
printf '%s\n' "$calls" | sed -n 's/.*lang_\(err\|warn\|note\)([^"]*"\(\([^"\\]\|\\.\)*\)".*/\2/p' | sort -u >"$tmp/formats"
missing=
nformats=0
while IFS= read -r fmt; do
	case $fmt in '%s' | 'file is too large' | "include '%s' nested too deeply: more than %d files") continue ;; esac
	nformats=$((nformats + 1))
	# C escapes to text, regex specials escaped, conversions to .*
	pat=$(printf '%s\n' "$fmt" | sed -e 's/\\"/"/g' -e 's/\\\\/\\/g' \
		-e 's/[][\.*^$+?(){}|/]/\\&/g' -e 's/%%/%/g' -e 's/%z\{0,1\}[sdu]/.*/g')
	grep -E -q -- "$pat" "$tmp/all-err" || missing="$missing; $fmt"
done <"$tmp/formats"
if [ -z "$split" ] && [ -z "$missing" ] && [ $nformats -gt 50 ]; then
	echo "ok $n - the cases emit every one of the $nformats diagnostic formats of lang/"
else
	failed=$((failed + 1))
	echo "not ok $n - the cases emit every diagnostic format of lang/ ($nformats formats)"
	[ -z "$missing" ] || echo "# no case emits:${missing#;}"
	[ -z "$split" ] || printf '%s\n' "$split" | sed 's/^/# a call without its format on its line: /'
fi
echo "1..$n"
[ $failed -eq 0 ]
