#!/bin/sh
# tests/golden/coverage.sh: every diagnostic the spec language can emit is
# pinned by a test. Takes the format string of each lang_err / lang_warn /
# lang_note call in lang/*.c, lang/*.y and lang/*.l, turns it into a pattern
# (each printf conversion matches anything, %% a percent sign) and looks for it in the expected
# stderr of the golden cases (tests/golden/cases/*.err) and in the messages
# the unit test checks (tests/unit/lang_test.c). One TAP line per format.
# The bare "%s" (syntax errors composed in parser.y) is pinned by the
# bad-parse-* cases instead.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/coverage.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

cat "$srcdir"/tests/golden/cases/*.err "$srcdir/tests/unit/lang_test.c" >"$tmp/haystack"
# the literal right after the reporter's two first arguments
grep -h 'lang_\(err\|warn\|note\)(' "$srcdir"/lang/*.c "$srcdir"/lang/*.y "$srcdir"/lang/*.l |
	grep -v '^[a-z].*(struct lang_diag' |
	sed -n 's/.*lang_\(err\|warn\|note\)([^"]*"\(\([^"\\]\|\\.\)*\)".*/\2/p' |
	sort -u >"$tmp/formats"
# calls whose format is not on the call's line would be missed: refuse them
if grep -h 'lang_\(err\|warn\|note\)(' "$srcdir"/lang/*.c "$srcdir"/lang/*.y "$srcdir"/lang/*.l |
	grep -v '^[a-z].*(struct lang_diag' | grep -v '"' >"$tmp/split"; then
	echo "not ok 1 - every diagnostic call has its format on one line"
	sed 's/^/# /' "$tmp/split"
	echo "1..1"
	exit 1
fi

n=0
failed=0
while IFS= read -r fmt; do
	[ "$fmt" = "%s" ] && continue
	n=$((n + 1))
	# C escapes to text, regex specials escaped, conversions to .*
	pat=$(printf '%s\n' "$fmt" | sed -e 's/\\"/"/g' -e 's/\\\\/\\/g' \
		-e 's/[][\.*^$+?(){}|/]/\\&/g' -e 's/%%/%/g' -e 's/%z\{0,1\}[sdu]/.*/g')
	if grep -E -q -- "$pat" "$tmp/haystack"; then
		echo "ok $n - $fmt"
	else
		failed=$((failed + 1))
		echo "not ok $n - no test emits: $fmt"
	fi
done <"$tmp/formats"
echo "1..$n"
[ $failed -eq 0 ]
