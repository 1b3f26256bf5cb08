#!/bin/sh
# tests/callgraph-self.sh: tests/callgraph.py on object files compiled
# here, whose calls are known: it names a loop through three files and
# passes two files that call each other; with parts, it names a call up
# to a higher part, a call between two parts of one rank, and a file of
# no part, and passes calls down. Prints TAP.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
cg="python3 $top_srcdir/tests/callgraph.py"
cc=${CC:-cc}
if ! command -v "$cc" > /dev/null 2>&1; then
	echo "1..0 # SKIP no C compiler ($cc)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-callgraph-self-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }

# obj PATH DEFINES CALLS...: PATH.o defines function DEFINES, which calls CALLS
obj() {
	mkdir -p "$tmp/$(dirname "$1")"
	f=$1 d=$2
	shift 2
	{
		for c in "$@"; do printf 'int %s(void);\n' "$c"; done
		printf 'int %s(void);\nint %s(void)\n{\n\treturn 0' "$d" "$d"
		for c in "$@"; do printf ' + %s()' "$c"; done
		printf ';\n}\n'
	} > "$tmp/$f.c"
	"$cc" -c -o "$tmp/$f.o" "$tmp/$f.c"
}

obj three/a fa fb
obj three/b fb fc
obj three/c fc fa
obj three/d fd fa
obj two/x fx fy
obj two/y fy fx
obj two/z fz fx

out=$($cg --root "$tmp" "$tmp"/three/*.o) && rc=0 || rc=$?
check "a loop through three files fails" '[ $rc -eq 1 ]'
check "it is named with its files and calls" \
	'echo "$out" | grep -q "a cycle of 3 files: three/a, three/b, three/c: three/a -> three/b (fb); three/b -> three/c (fc); three/c -> three/a (fa)"'
check "a file that only calls into the loop is not in it" '! echo "$out" | grep -q "three/d,"'
out=$($cg --root "$tmp" "$tmp"/two/*.o) && rc=0 || rc=$?
check "two files that call each other pass" '[ $rc -eq 0 ] && echo "$out" | grep -q "^ok 1 - no cycle of more than two files (3 files)"'

obj parts/lib/l fl
obj parts/lib/m fm fl
obj parts/side1/p fp fl
obj parts/side2/q fq fm
obj parts/top/t ft fp fq fl
parts="--part lib:0:parts/lib/ --part side1:1:parts/side1/ --part side2:1:parts/side2/ --part top:2:parts/top/"
out=$($cg --root "$tmp" $parts "$tmp"/parts/*/*.o) && rc=0 || rc=$?
check "calls down and within a part pass" '[ $rc -eq 0 ]'
obj parts/lib/up fu ft
out=$($cg --root "$tmp" $parts "$tmp"/parts/*/*.o) && rc=0 || rc=$?
check "a call up to a higher part fails, named" \
	'[ $rc -eq 1 ] && echo "$out" | grep -q "^# parts/lib/up (lib) calls parts/top/t (top): ft$"'
rm "$tmp"/parts/lib/up.o
obj parts/side1/s fs fq
out=$($cg --root "$tmp" $parts "$tmp"/parts/*/*.o) && rc=0 || rc=$?
check "a call between two parts of one rank fails, named" \
	'[ $rc -eq 1 ] && echo "$out" | grep -q "^# parts/side1/s (side1) calls parts/side2/q (side2): fq$"'
rm "$tmp"/parts/side1/s.o
obj parts/stray/w fw fl
out=$($cg --root "$tmp" $parts "$tmp"/parts/*/*.o) && rc=0 || rc=$?
check "a file of no part fails, named" '[ $rc -eq 1 ] && echo "$out" | grep -q "^# parts/stray/w: in no part"'
echo "1..$n"
