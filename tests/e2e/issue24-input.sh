#!/bin/sh
# tests/e2e/issue24-input.sh: issue 24's odd input, through koptmake:
#   - a spec with a 1 MB line and an error at its end: the diagnostic shows
#     a window of the line and goes out in a few write() calls (counted
#     with strace where there is one; 1,048,729 before);
# Prints TAP.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" i24-input

# a 1 MB line, the error at its end
awk 'BEGIN { printf "X = \""; for (i = 0; i < 16384; i++) printf "%064d", 0; print "\"  Y = nosuchvar" }' > long.kopt
rc=0
"$KOPTMAKE" -t check -f long.kopt > out 2> err || rc=$?
check "a 1 MB line with an error at its end: exit 2, the error named at its column" \
	"[ $rc -eq 2 ] && grep -q \"^long.kopt:1:1048589: error: undefined variable 'nosuchvar'\" err"
check "the source line shows as a window of at most 170 bytes, cut with '...'" \
	"[ \$(sed -n 2p err | wc -c) -le 170 ] && sed -n 2p err | grep -q '^\.\.\.0*\"  Y = nosuchvar\$'"
check "and its caret as long" "[ \$(sed -n 3p err | wc -c) -le 170 ] && sed -n 3p err | grep -q '^ *^~~~~~~~~\$'"
if command -v strace > /dev/null 2>&1 && strace -o /dev/null true 2> /dev/null; then
	strace -f -e trace=write -o writes.log "$KOPTMAKE" -t check -f long.kopt > /dev/null 2>&1 || true
	nw=$(grep -c '^[0-9]* *write(' writes.log || true)
	check "a diagnostic goes out in a write or two ($nw write() calls in all)" "[ $nw -le 10 ]"
else
	n=$((n + 1)); echo "ok $n - a diagnostic goes out in a write or two # SKIP no strace here"
fi

echo "1..$n"
