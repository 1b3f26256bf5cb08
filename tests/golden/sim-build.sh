#!/bin/sh
# tests/golden/sim-build.sh: golden tests of whole builds. Each case is a
# folder with a spec and its model files, built from scratch with the
# simulated worker (tests/sim-worker.c, a TEST DOUBLE whose every figure
# is a function of the model file's bytes), one job at a time, with a
# fixed environment and seal key. What the build leaves is compared with
# tests/golden/sim/NAME/, file by file:
#   log          the build's output and its exit status
#   query        `-t query`: every step, fresh or stale
#   keys         `-t query STEP` of every step: its key, the key of its
#                stable part and its inputs (a report's or a deploy's key
#                is left out: it hashes its inputs' measurements, the
#                host's times among them)
#   why          `-t why` of every step but captures and proposals (a
#                verify step's verdict, candidate, analysis and reasons
#                alone), less the host's own times
#   memory       `-t memory`: the agents' memory
#   out/...      every file of kopt-out/, as written
#   rebuild      the output of a second build after one model file changed
#                (a comment appended to the case's first model): what reruns
#   clean        the files left in kopt-out/ after `-t clean`
# So any change to what a user sees of a build (a report's cell, a
# message's wording, a figure's rounding, a step that reruns or not)
# fails the case that shows it, with the difference. Cases: the
# repository's examples/ (examples.kopt) and the folders under
# tests/golden/sim-cases/. Paths of the scratch folder and of the build
# read @TMP@ and @BUILD@.
# KOPT_GOLDEN_UPDATE=1 rewrites the expected files from what koptmake does
# (read every change before committing it). One TAP line per case and part.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$(pwd)}
koptmake=${KOPTMAKE:-$builddir/koptmake}
worker=$builddir/tests/sim-worker
expect=$srcdir/tests/golden/sim
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-sim.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM

# the environment every koptmake and worker of a case sees
run() { # DIR ARGS...
	d=$1
	shift
	(cd "$d" && env -i PATH="$PATH" LC_ALL=C HOME="$tmp/home" TMPDIR="$tmp" \
		KOPT_WORKER="$worker" KOPT_PYTHON="$srcdir/tests/sim-python" \
		KOPT_SEAL_KEY=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef \
		KOPT_SANDBOX=off KOPT_LOCK_WAIT_MS=60000 \
		${VALGRIND:-} "$koptmake" -j1 -k "$@" 2>&1)
}
# paths of this run, and the host's own times, out of a text
norm() {
	sed -e "s|$tmp|@TMP@|g" -e "s|$builddir|@BUILD@|g" -e "s|$srcdir|@SRC@|g" \
		-e '/^  *worker_s  /d' -e '/^  *gpu_s  /d' -e 's/in [0-9.]* s$/in @ s/' -e 's/ran in [0-9:]*/ran in @/'
}

n=0
failed=0
compare() { # CASE PART (the file or folder under $tmp/got/CASE)
	n=$((n + 1))
	want=$expect/$1/$2
	got=$tmp/got/$1/$2
	if [ "${KOPT_GOLDEN_UPDATE:-}" = 1 ]; then
		rm -rf "$want"
		mkdir -p "$(dirname "$want")"
		cp -R "$got" "$want"
	fi
	if diff -r "$want" "$got" > "$tmp/diff" 2>&1; then
		echo "ok $n - $1: $2 as recorded"
	else
		echo "not ok $n - $1: $2 differs from tests/golden/sim/$1/$2"
		head -n 40 "$tmp/diff" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
}

one() { # NAME FOLDER SPEC FIRST_MODEL
	name=$1
	spec=$3
	first=$4
	w=$tmp/work/$name
	g=$tmp/got/$name
	mkdir -p "$w" "$g"
	(cd "$2" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (cd "$w" && tar xf -)
	chmod -R u+w "$w"
	{ run "$w" -f "$spec" all; echo "exit $?"; } | norm > "$g/log"
	run "$w" -f "$spec" -t query | norm > "$g/query"
	# every step's key and inputs, and the why of each but captures and
	# proposals, each tool run once over the steps (it plans once)
	awk '{ print $2, $3 }' "$g/query" > "$tmp/steps"
	set --
	while read -r kind p; do set -- "$@" "$kind $p"; done < "$tmp/steps"
	run "$w" -f "$spec" -t query "$@" | awk '/^\{/ { skip = 1 } !skip && /^[a-z]/ { kind = $1 }
		!skip && !(/^  key / && (kind == "report" || kind == "deploy")) { print } /^\}/ { skip = 0 }' | norm > "$g/keys"
	set --
	while read -r kind p; do
		[ "$kind" = capture ] || [ "$kind" = propose ] || set -- "$@" "$kind $p"
	done < "$tmp/steps"
	run "$w" -f "$spec" -t why "$@" | awk '/^[a-z]/ { kind = $1; print; next }
		kind != "verify" || /^  (candidate|analysis|reason|worker said) /' | norm > "$g/why"
	run "$w" -f "$spec" -t memory | norm > "$g/memory"
	cp -R "$w/kopt-out" "$g/out"
	echo "# changed" >> "$w/$first"
	{ run "$w" -f "$spec" all; echo "exit $?"; } | norm > "$g/rebuild"
	run "$w" -f "$spec" -t clean > /dev/null
	(cd "$w" && find kopt-out -type f 2>/dev/null | LC_ALL=C sort) > "$g/clean"
	for part in log query keys why memory out rebuild clean; do
		compare "$name" "$part"
	done
}

one examples "$srcdir/examples" examples.kopt models/softmax.py
one helion "$srcdir/examples/helion" helion.kopt softmax.py
for c in "$srcdir"/tests/golden/sim-cases/*/; do
	[ -f "$c/case.kopt" ] || continue
	one "$(basename "$c")" "$c" case.kopt "$(sed -n 's/^# first model: //p' "$c/case.kopt")"
done
echo "1..$n"
echo "# $((n - failed)) of $n parts as recorded"
[ "$failed" -eq 0 ]
