#!/bin/sh
# tests/size.sh [FILE.c|FILE.py...]: the size convention (issues 18, 41).
# No hand-written .c or .py file has more than 900 lines, and no function
# more than 120, unless the function says why it must be "one piece": in
# C, the line just above the signature or the comment that opens the
# function (from the first line of its signature to its closing brace; a
# function opens with `{` and closes with `}` in column 0, as everywhere in
# this code base); in Python, the comment just above its `def` (or its
# decorators) or its docstring (from its first decorator or `def` to its
# last line; methods and nested functions each count). Names each
# offender as FILE:LINE: FUNCTION (N lines), or FILE: N lines. Prints TAP;
# exits 1 when any is found.
#
# Without arguments: every .c and .py file of the repository (git
# ls-files, else the source folders of a tarball) outside tests/ and
# bench/, less lexer.c and parser.c, which flex and bison write.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
MAX_FILE=900
MAX_FUNC=120
if [ $# -gt 0 ]; then
	all=$*
else
	cd "$top_srcdir"
	if [ -e .git ] && command -v git > /dev/null 2>&1; then
		all=$(git ls-files '*.c' '*.py')
	else
		all=$(find . -name '*.c' -o -name '*.py' | sed 's|^\./||' | sort)
	fi
	all=$(printf '%s\n' $all | grep -v '^tests/' | grep -v '^bench/' | grep -v '^_' |
		grep -v '\(^\|/\)lexer\.c$' | grep -v '\(^\|/\)parser\.c$')
fi
files=$(printf '%s\n' $all | grep '\.c$' || true)
pyfiles=$(printf '%s\n' $all | grep '\.py$' || true)
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
# Python: its own syntax tree says where each function ends
for f in $pyfiles; do
	nfiles=$((nfiles + 1))
done
if [ -n "$pyfiles" ]; then
	# shellcheck disable=SC2086
	python3 - "$MAX_FILE" "$MAX_FUNC" "$tmp/files" "$tmp/funcs" $pyfiles <<'EOF'
import ast, sys
max_file, max_func, files_out, funcs_out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
with open(files_out, "a") as ff, open(funcs_out, "a") as fu:
    for f in sys.argv[5:]:
        src = open(f, encoding="utf-8").read()
        lines = src.split("\n")
        if src.count("\n") > max_file:
            ff.write(f"{f}: {src.count(chr(10))} lines\n")
        try:
            tree = ast.parse(src, f)
        except SyntaxError as e:
            ff.write(f"{f}:{e.lineno}: does not parse\n")
            continue
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            start = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
            n = fn.end_lineno - start + 1
            if n <= max_func:
                continue
            above, i = [], start - 2
            while i >= 0 and lines[i].strip().startswith("#"):
                above.append(lines[i])
                i -= 1
            if "one piece" in "\n".join(above) or "one piece" in (ast.get_docstring(fn) or ""):
                continue
            fu.write(f"{f}:{start}: {fn.name} ({n} lines)\n")
EOF
fi
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
check "no .c or .py file over $MAX_FILE lines ($nfiles hand-written files)" "$tmp/files"
check "no function over $MAX_FUNC lines without a \"one piece\" reason" "$tmp/funcs"
echo "1..$n"
[ ! -s "$tmp/files" ] && [ ! -s "$tmp/funcs" ]
