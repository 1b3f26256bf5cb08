#!/bin/sh
# tests/size.sh [FILE.c...]: the size convention (issue 18). No hand-written
# .c file has more than 900 lines, and no function more than 120 (from the
# first line of its signature to its closing brace), unless the line just
# above the signature or the comment that opens the function says why it
# must be "one piece". A function opens with `{` and closes with `}` in
# column 0, as everywhere in this code base. Names each offender as
# FILE:LINE: FUNCTION (N lines), or FILE: N lines. Prints TAP; exits 1 when
# any is found.
#
# Without arguments: every .c file of the repository (git ls-files, else the
# source folders of a tarball) outside tests/ and bench/, less lexer.c and
# parser.c, which flex and bison write.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
MAX_FILE=900
MAX_FUNC=120
if [ $# -gt 0 ]; then
	files=$*
else
	cd "$top_srcdir"
	if [ -e .git ] && command -v git > /dev/null 2>&1; then
		files=$(git ls-files '*.c')
	else
		files=$(find . -name '*.c' | sed 's|^\./||' | sort)
	fi
	files=$(printf '%s\n' $files | grep -v '^tests/' | grep -v '^bench/' | grep -v '^_' |
		grep -v '\(^\|/\)lexer\.c$' | grep -v '\(^\|/\)parser\.c$')
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-size-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/files"
: > "$tmp/funcs"
nfiles=0
for f in $files; do
	nfiles=$((nfiles + 1))
	n=$(wc -l < "$f")
	[ "$n" -le $MAX_FILE ] || echo "$f: $n lines" >> "$tmp/files"
	# a function: its signature starts at the last line in column 0 above
	# its `{` that is not a comment; the comment block right above the
	# signature opens it
	awk -v f="$f" -v max=$MAX_FUNC '
	infunc && /^\}/ {
		if (NR - sig + 1 > max && (above "\n" opening) !~ /one piece/)
			printf "%s:%d: %s (%d lines)\n", f, sig, name, NR - sig + 1
		infunc = 0; sig = 0
	}
	infunc { next }
	/^\/\*/ { incomment = 1; comment = "" }
	incomment {
		comment = comment "\n" $0
		if ($0 ~ /\*\//) { incomment = 0; comment_end = NR }
		prev = $0; next
	}
	/^\{/ { if (sig) infunc = 1; next }
	/^$/ || /^[}#]/ || (/^[A-Za-z_]/ && /;[ \t]*$/) { sig = 0; prev = $0; next }
	/^[A-Za-z_]/ && !sig {
		sig = NR; name = ""; above = prev
		opening = comment_end == NR - 1 ? comment : ""
	}
	sig && name == "" && /\(/ {
		name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
	}
	{ prev = $0 }
' "$f" >> "$tmp/funcs"
done
n=0
check() {
	n=$((n + 1))
	if [ -s "$2" ]; then
		echo "not ok $n - $1"
		sed 's/^/# /' "$2"
	else
		echo "ok $n - $1"
	fi
}
check "no .c file over $MAX_FILE lines ($nfiles hand-written files)" "$tmp/files"
check "no function over $MAX_FUNC lines without a \"one piece\" reason" "$tmp/funcs"
echo "1..$n"
[ ! -s "$tmp/files" ] && [ ! -s "$tmp/funcs" ]
