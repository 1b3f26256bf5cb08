#!/bin/sh
# tests/golden/masked.sh: a spec read from a file that does not look like
# one (its name is not *.kopt or Koptfile) may be another file given by
# mistake, a secret's: its diagnostics are counted, at the worst of their
# severities, and their text (its lines) is not shown. Prints TAP.
set -u
koptmake=${KOPTMAKE:-$(pwd)/koptmake}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-masked-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$tmp/err"; fi; }
cd "$tmp" || exit 1
printf 'import torch\n' > m.py
printf 'model m {\n  source = 3\n  bogus = "hunter2-secret"\n}\n' > two.txt
printf 'model m {\n  source = 3\n}\n' > one.txt
printf 'models g = glob("nothing/*.py")\nmodel m { source = "m.py" }\n' > warn.txt
printf 'model m {\n  source = 3\n}\n' > one.kopt
"$koptmake" -t dump -f two.txt > out 2> "$tmp/err"; rc=$?
check "two errors: exit 2, counted as 2 diagnostics, at the file, no line of it shown" \
	"[ $rc -eq 2 ] && [ \"\$(head -1 $tmp/err)\" = \"two.txt: error: 2 diagnostics in a file that does not look like a spec (its name is not *.kopt or Koptfile): its text is not shown\" ] && ! grep -q 'hunter2\\|source\\|bogus' $tmp/err"
"$koptmake" -t dump -f one.txt > out 2> "$tmp/err"; rc=$?
check "one error: '1 diagnostic'" \
	"[ $rc -eq 2 ] && [ \"\$(head -1 $tmp/err)\" = \"one.txt: error: 1 diagnostic in a file that does not look like a spec (its name is not *.kopt or Koptfile): its text is not shown\" ]"
"$koptmake" -t dump -f warn.txt > out 2> "$tmp/err"; rc=$?
check "a warning alone: exit 0, said as a warning" \
	"[ $rc -eq 0 ] && [ \"\$(cat $tmp/err)\" = \"warn.txt: warning: 1 diagnostic in a file that does not look like a spec (its name is not *.kopt or Koptfile): its text is not shown\" ]"
"$koptmake" -t dump -f one.kopt > out 2> "$tmp/err"; rc=$?
check "the same text in a *.kopt file is shown" "[ $rc -eq 2 ] && grep -q '^one.kopt:2:' $tmp/err && ! grep -q 'does not look like a spec' $tmp/err"
echo "1..$n"
