#!/bin/sh
# tests/persist-static.sh: every kernel the coder's "persistent" edit makes
# from the recorded Inductor kernels (tests/unit/persist_test) passes gate 1,
# the static gate, against the original, and parses as Python. Prints TAP.
set -u
: "${top_srcdir:=.}" "${top_builddir:=.}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-persist-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
PERSIST_OUT=$tmp top_srcdir=$top_srcdir "$top_builddir/tests/unit/persist_test" > "$tmp/tap" 2>&1
n=0
for name in softmax rmsnorm layernorm; do
	n=$((n + 1))
	if [ ! -f "$tmp/$name.py" ]; then
		echo "not ok $n - $name: the edit made no kernel"
		continue
	fi
	out=$(PYTHONPATH=$top_srcdir/runtime/python${PYTHONPATH:+:$PYTHONPATH} python3 -m kopt.static_gate "$tmp/$name.py" \
		"$top_srcdir/tests/fixtures/kernels/$name.py" 2>&1)
	case $out in
	pass:*) echo "ok $n - $name: the edited kernel passes the static gate ($out)" ;;
	*) echo "not ok $n - $name: $out" ;;
	esac
done
# the screen's knob persist=on (runtime/python/kopt/knobs.py) is the same
# transform: the same text from the same kernel
for name in softmax rmsnorm layernorm; do
	n=$((n + 1))
	if PYTHONPATH=$top_srcdir/runtime/python${PYTHONPATH:+:$PYTHONPATH} python3 -c 'import sys; from kopt import knobs
sys.exit(knobs.persist(open(sys.argv[1]).read())[0] != open(sys.argv[2]).read())' \
		"$top_srcdir/tests/fixtures/kernels/$name.py" "$tmp/$name.py" 2>/dev/null; then
		echo "ok $n - $name: kopt.knobs persist=on gives the coder's text"
	else
		echo "not ok $n - $name: kopt.knobs persist=on differs from the coder's edit"
	fi
done
echo "1..$n"
