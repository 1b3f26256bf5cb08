#!/bin/sh
# tools/sim-examples-diff.sh: builds examples/ with the simulated worker (a
# TEST DOUBLE, tests/sim-worker.c) twice, with two builds of koptmake, and
# compares what each wrote in kopt-out/: a refactor that changes no
# behaviour leaves every report, profile, substitution table and plot as it
# was.
#
# usage: tools/sim-examples-diff.sh OLD_BUILD [NEW_BUILD]
#   OLD_BUILD, NEW_BUILD: build folders holding koptmake and
#   tests/sim-worker (NEW_BUILD defaults to the current folder). Build the
#   old one from a clone, e.g.
#     git clone -q -b main . /tmp/old && (cd /tmp/old && autoreconf -fi &&
#       ./configure -q && make -j2)
# Exit 0 when kopt-out/ is the same byte for byte, 1 with the differences.
set -eu
old=$(cd "${1:?usage: tools/sim-examples-diff.sh OLD_BUILD [NEW_BUILD]}" && pwd)
new=$(cd "${2:-.}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-simdiff-XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
unset KOPT_LAUNCHER KOPT_SIM_TORCH KOPT_SIM_DELAY_MS KOPT_SIM_LOG KOPT_SIM_TRACE KOPT_SIM_HOSTSKEW 2>/dev/null || true
for side in old new; do
	eval "b=\$$side"
	mkdir "$tmp/$side"
	(cd "$src/examples" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (cd "$tmp/$side" && tar xf -)
	status=0
	KOPT_WORKER=$b/tests/sim-worker "$b/koptmake" -C "$tmp/$side" all > "$tmp/$side.out" 2>&1 || status=$?
	echo "$side: koptmake exited $status, $(grep -c '^\[' "$tmp/$side.out" || true) steps, $(find "$tmp/$side/kopt-out" -type f | wc -l) files in kopt-out"
done
if diff -r "$tmp/old/kopt-out" "$tmp/new/kopt-out" > "$tmp/diff"; then
	echo "kopt-out/ is the same"
	exit 0
fi
cat "$tmp/diff"
exit 1
