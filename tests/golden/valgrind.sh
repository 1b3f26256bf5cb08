#!/bin/sh
# tests/golden/valgrind.sh: the golden cases, the kopt(5) examples and the
# lang unit test again, each run under valgrind (memcheck with the leak
# check); a valgrind error fails the case. Run by `make check' when
# configured with --enable-valgrind, or by hand from a build folder.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${top_builddir:-.}
VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
export VALGRIND
{
	sh "$srcdir/tests/golden/run-golden.sh"
	sh "$srcdir/tests/golden/man-examples.sh"
	if $VALGRIND "$top/tests/unit/lang_test" >/dev/null 2>&1; then
		echo "ok 1 - lang_test"
	else
		echo "not ok 1 - lang_test"
	fi
} | awk '
	/^1\.\./ { next }
	/^(not )?ok [0-9]+/ {
		n++
		bad = /^not /
		if (bad) failed++
		sub(/^(not )?ok [0-9]+ /, "")
		print (bad ? "not ok " : "ok ") n " valgrind: " $0
		next
	}
	{ print }
	END { print "1.." n; exit failed ? 1 : 0 }'
