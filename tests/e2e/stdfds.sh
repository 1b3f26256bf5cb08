#!/bin/sh
# tests/e2e/stdfds.sh: koptmake started with its standard descriptors
# closed (`koptmake <&- >&- 2>&-`, as a cron job or a daemon may start
# it). The first file koptmake opened took the lowest free descriptor, so
# a closed stdout made .kopt/lock koptmake's stdout, and its progress
# lines landed there. Each closed descriptor is now /dev/null
# (src/main.c): nothing printed reaches the cache or kopt-out, and the
# cache reads back whole. With the simulated worker (a TEST DOUBLE).
# Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" stdfds
one_model
# the files koptmake wrote that hold a line it prints (progress, summary,
# the warning below)
printed() { grep -rlE 'steps ran|^\[[0-9]+/|koptmake: (warning|all:)' .kopt kopt-out 2>/dev/null || true; }
lockfile_is_pid() { [ "$(wc -l < .kopt/lock)" -le 1 ] && grep -qE '^[0-9]+$' .kopt/lock; }

for closed in '<&-' '>&-' '2>&-' '<&- >&- 2>&-' '>&- 2>&-'; do
	rm -rf .kopt kopt-out
	rc=0
	case $closed in
	'<&-') "$KOPTMAKE" <&- > out 2> err || rc=$? ;;
	'>&-') "$KOPTMAKE" >&- 2> err || rc=$? ;;
	'2>&-') "$KOPTMAKE" > out 2>&- || rc=$? ;;
	'<&- >&- 2>&-') "$KOPTMAKE" <&- >&- 2>&- || rc=$? ;;
	'>&- 2>&-') "$KOPTMAKE" -k -j 1 >&- 2>&- || rc=$? ;;
	esac
	check "$closed: the build succeeds (exit $rc) with its report" "[ $rc -eq 0 ] && [ -f kopt-out/all/report.md ]"
	check "$closed: nothing it printed is in .kopt or kopt-out ($(printed | tr '\n' ' '))" "[ -z \"\$(printed)\" ]"
	check "$closed: the lock holds its owner's pid alone" "lockfile_is_pid"
	check "$closed: the cache reads back whole: nothing to do next" \
		"\"$KOPTMAKE\" -n > n 2>&1 && grep -q '^0 steps would run' n"
done
echo "1..$n"
