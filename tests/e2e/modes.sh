#!/bin/sh
# tests/e2e/modes.sh: the modes of what koptmake writes. Files are created
# rw for their owner and readable as the umask allows (0644 under umask
# 022, 0600 under 077), folders rwx likewise, and nothing is made
# executable or writable by others: a lock or a log another koptmake of
# the same user could not open again would stop the next build. With the
# simulated worker (a TEST DOUBLE). Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" modes
one_model
# the modes found under .kopt and kopt-out other than $1 (files) and $2 (folders)
others() { find .kopt kopt-out \( -type f ! -perm "$1" \) -o \( -type d ! -perm "$2" \) | sed 's/^/  /'; }
for u in 022 077; do
	rm -rf .kopt kopt-out
	rc=0
	(umask $u && "$KOPTMAKE" > out 2> err) || rc=$?
	f=$([ $u = 022 ] && echo 644 || echo 600) d=$([ $u = 022 ] && echo 755 || echo 700)
	check "umask $u: the build succeeds (exit $rc)" "[ $rc -eq 0 ] && [ -f kopt-out/all/report.md ]"
	check "umask $u: .kopt's lock, log and environment are $f" \
		"[ \"\$(stat -c %a .kopt/lock .kopt/log .kopt/env | sort -u)\" = $f ]"
	check "umask $u: every file is $f, every folder $d$(others $f $d | tr '\n' ' ')" "[ -z \"\$(others $f $d)\" ]"
	check "umask $u: a second build opens them again: nothing to do" \
		"(umask $u && \"$KOPTMAKE\" > out2 2>&1) && grep -q 'nothing to do' out2"
done
echo "1..$n"
