#!/bin/sh
# tests/golden/man-examples.sh: the examples in kopt(5) parse and check.
# Each block between `.\" example begin NAME' and `.\" example end' is
# written to NAME in a temp folder (roff escapes undone); every source file
# the examples name is created as a placeholder that defines what each kind
# of problem file needs (-t check reads them with Python's parser),
# KERNELBENCH points at a folder with two level1 files, and
# `koptmake -t check -f NAME' must pass for each.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
koptmake=${KOPTMAKE:-$(pwd)/koptmake}
man="$srcdir/man/kopt.5"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt5.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

names=$(sed -n 's/^\.\\" example begin \(.*\)$/\1/p' "$man")
for name in $names; do
	sed -n "/^\.\\\\\" example begin $name\$/,/^\.\\\\\" example end\$/p" "$man" |
		sed -e '1d' -e '$d' -e '/^\.EX$/d' -e '/^\.EE$/d' \
		    -e 's/\\e/\\/g' -e 's/\\-/-/g' -e 's/\\(dq/"/g' >"$tmp/$name"
done
cat >"$tmp/placeholder.py" <<'EOF'
# a placeholder: what a model, a Triton kernel and a Helion kernel file define
import helion
class Model:
    pass
def get_inputs():
    return []
def get_init_inputs():
    return []
def reference(*inputs):
    return inputs
def launch(*inputs):
    return inputs
@helion.kernel
def kernel(x):
    return x
EOF
sed -n 's/.*source *= *"\([^"]*\)".*/\1/p' "$tmp"/* | while read -r src; do
	mkdir -p "$tmp/$(dirname "$src")"
	cp "$tmp/placeholder.py" "$tmp/$src"
done
mkdir -p "$tmp/kb/level1"
cp "$tmp/placeholder.py" "$tmp/kb/level1/1_Square.py"
cp "$tmp/placeholder.py" "$tmp/kb/level1/2_Softmax.py"

n=0
failed=0
for name in $names; do
	n=$((n + 1))
	if (cd "$tmp" && KERNELBENCH="$tmp/kb" ${VALGRIND:-} "$koptmake" -t check -f "$name") >"$tmp/log" 2>&1; then
		echo "ok $n - kopt(5) example $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - kopt(5) example $name"
		sed 's/^/# /' "$tmp/log"
	fi
done
if [ $n -lt 2 ]; then
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - kopt(5) has examples"
fi
echo "1..$n"
[ $failed -eq 0 ]
