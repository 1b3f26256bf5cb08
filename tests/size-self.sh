#!/bin/sh
# tests/size-self.sh: tests/size.sh on files written here, whose sizes are
# known: it names a function of 121 lines and a file of 901, passes one of
# 120 lines and a file of 900, and passes a long function whose opening
# comment, or the line just above it, says why it must be one piece (and
# not one whose comment says it of something else); in C and in Python
# (where methods, decorators, docstrings and a file that does not parse
# count too).
# Prints TAP.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
size=$top_srcdir/tests/size.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-size-self-XXXXXX")
trap "[ -n \"${KEEP:-}\" ] || rm -rf $tmp" EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }

# fn NAME BODY_LINES: a function of BODY_LINES + 3 lines (signature, braces)
fn() {
	printf 'static int %s(int x)\n{\n' "$1"
	i=0
	while [ $i -lt "$2" ]; do
		printf '\tx += %d;\n' $i
		i=$((i + 1))
	done
	printf '}\n'
}
{
	printf '/* a.c: sizes known */\n#include <stdio.h>\n\n'
	fn fits 117
	printf '\n/* too long */\n'
	fn long 118
	printf '\n/*\n * This is one piece: the steps share their locals.\n */\n'
	fn reasoned 200
	printf '\n/* the next one must be one piece: a table */\n'
	printf 'static const int table[] = {\n\t1,\n};\n\n'
	printf '/* it says why */\nstatic long\n'
	fn split 130 | sed '1s/^static int /long_signature_/'
	printf '\n// one piece: the line just above says why\n'
	fn above 130
} > "$tmp/a.c"
printf 'int x;\n' > "$tmp/b.c"
i=1
while [ $i -lt 900 ]; do printf '\n' >> "$tmp/b.c"; i=$((i + 1)); done
cp "$tmp/b.c" "$tmp/c.c"
printf '\n' >> "$tmp/c.c"

rc=0
(cd "$tmp" && sh "$size" a.c b.c c.c) > "$tmp/out" || rc=$?
check "it fails on an offender" "[ $rc -eq 1 ]"
check "it names the function of 121 lines" "grep -qx '# a.c:126: long (121 lines)' $tmp/out"
check "it passes the function of 120 lines" "! grep -q ' fits ' $tmp/out"
check "a function whose opening comment says one piece passes" "! grep -q ' reasoned ' $tmp/out"
check "so does one whose signature's line above says it" "! grep -q ' above ' $tmp/out"
check "its signature over two lines: the name and the first line" \
	"grep -qx '# a.c:[0-9]*: long_signature_split (134 lines)' $tmp/out"
check "it names the file of 901 lines" "grep -qx '# c.c: 901 lines' $tmp/out"
check "it passes the file of 900 lines" "! grep -q '# b.c' $tmp/out"
check "two offending functions, one file, no more" "[ \$(grep -c '^# ' $tmp/out) -eq 3 ]"
(cd "$tmp" && sh "$size" b.c) > "$tmp/ok"
check "it passes files that keep the convention" "grep -qx 'ok 2 - no function over 120 lines without a \"one piece\" reason' $tmp/ok"

# Python: pyfn NAME BODY_LINES [INDENT]: a def of BODY_LINES + 1 lines
pyfn() {
	printf '%sdef %s(x):\n' "${3:-}" "$1"
	i=0
	while [ $i -lt "$2" ]; do
		printf '%s    x += %d\n' "${3:-}" $i
		i=$((i + 1))
	done
}
{
	printf '"""a.py: sizes known"""\n\n\n'
	pyfn fits 119
	printf '\n\n'
	pyfn long 120
	printf '\n\n# one piece: the steps share their locals\n'
	pyfn above 130
	printf '\n\ndef documented(x):\n    """It must be one piece: a table."""\n'
	pyfn inner 5 '    '
	printf '    return x\n'
	i=0
	while [ $i -lt 130 ]; do printf '    x += 1\n'; i=$((i + 1)); done
	printf '\n\nclass C:\n'
	pyfn method 120 '    '
	printf '\n\n@staticmethod\n'
	pyfn decorated 119
} > "$tmp/a.py"
i=0
: > "$tmp/b.py"
while [ $i -lt 900 ]; do printf '\n' >> "$tmp/b.py"; i=$((i + 1)); done
cp "$tmp/b.py" "$tmp/c.py"
printf '\n' >> "$tmp/c.py"
printf 'def broken(:\n' > "$tmp/d.py"
rc=0
(cd "$tmp" && sh "$size" a.py b.py c.py d.py) > "$tmp/pyout" || rc=$?
check "Python: it fails on an offender" "[ $rc -eq 1 ]"
check "Python: it names the function of 121 lines" "grep -qx '# a.py:126: long (121 lines)' $tmp/pyout"
check "Python: it passes the function of 120 lines" "! grep -q ' fits ' $tmp/pyout"
check "Python: a function whose comment above says one piece passes" "! grep -q ' above ' $tmp/pyout"
check "Python: so does one whose docstring says it, and a short function inside it" \
	"! grep -q ' documented ' $tmp/pyout && ! grep -q ' inner ' $tmp/pyout"
check "Python: a method of 121 lines is named" "grep -q '^# a.py:[0-9]*: method (121 lines)\$' $tmp/pyout"
check "Python: a decorated function counts from its decorator" "grep -q '^# a.py:[0-9]*: decorated (121 lines)\$' $tmp/pyout"
check "Python: it names the file of 901 lines" "grep -qx '# c.py: 901 lines' $tmp/pyout"
check "Python: it passes the file of 900 lines" "! grep -q '# b.py' $tmp/pyout"
check "Python: a file that does not parse is named" "grep -qx '# d.py:1: does not parse' $tmp/pyout"
check "Python: the offenders, no more" "[ \$(grep -c '^# ' $tmp/pyout) -eq 5 ]"
echo "1..$n"
