#!/bin/sh
# tests/static/run.sh: the static gate (runtime/python/kopt/static_gate.py)
# on its corpus, one TAP line per case:
#   orig/*.py  real Inductor kernels (from an output code's
#              async_compile.triton sources) and standalone kernels; each
#              checked against itself must pass, except files that hold more
#              than the kernel (a launch function): their first line is
#              `# expect: ...` as below;
#   good/*.py  legitimate edits; `# original: NAME.py` names the original;
#              must pass; with `# memcheck: none` in its first lines
#              (every edit the gate can prove in bounds), with nothing
#              left for the GPU's memcheck: a loss of the gate's
#              precision fails them;
#   bad/*.py   first line `# expect: <substring of the reason>`, then
#              `# original: NAME.py` (a coding declaration may come between
#              them, on line 2); must fail with that reason. Escape
#              attempts by class: esc_* (frames, builtins, imports,
#              decorators, formatting, device print, inline assembly,
#              masks, bounds), scope_* (names that shadow an import, a
#              module name or a builtin), text_* (readings of the text
#              that differ: coding declarations, line breaks, NFKC,
#              Triton's own reading of a function), flow_* (values
#              assigned after an access, or on one branch), limit_*
#              (compile-time work: unrolling, loops that never end,
#              arithmetic, recursion), load_*, store_*, atomic_*, helper_*
#              (which buffer an access reads or writes: a store only into
#              one the original writes, a load of none it only writes,
#              through casts, pointer differences, tuples, comparisons and
#              helpers, Inductor's included, a helper's tl.constexpr
#              parameter too; an atomic that merges into what its buffer
#              held reads it; a function passed as a value, a combine
#              function, makes no access);
#   memcheck/*.py  first line `# memcheck: <substring>`: must pass, with an
#              access the gate cannot prove listed for the GPU's memcheck
#              (flow_*: values a loop or a branch carries; flow_branch_*:
#              a value an if picks, its test or a branch changed).
# Needs python3 (standard library only; no torch, no triton).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
dir=$top_srcdir/tests/static
PYTHON=${PYTHON:-python3}

if ! command -v "$PYTHON" >/dev/null 2>&1; then
	echo "1..0 # SKIP no $PYTHON"
	exit 0
fi

n=0
failed=0
report() { # ok|not-ok name [diagnostic]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && echo "# $3"
		failed=$((failed + 1))
	fi
}
bom=$(printf '\357\273\277')
header() { # file key -> value of `# key: value` in the first 3 lines (a BOM before line 1 aside)
	sed -n "1s/^$bom//;1,3s/^# $2: //p" "$1" | head -n 1
}

files() { for f in "$dir"/orig/*.py "$dir"/good/*.py "$dir"/bad/*.py "$dir"/memcheck/*.py; do echo "$f"; done; }
original() { # file -> the original it is checked against
	case $1 in
	*/orig/*) echo "$1" ;;
	*) echo "$dir/orig/$(header "$1" original)" ;;
	esac
}
# every pair through one process (static_gate --each: per pair, the
# two-file command's status and line), then read back in the same order
tab=$(printf '\t')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/static-run.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
files >"$tmp/files"
while IFS= read -r f; do printf '%s\t%s\n' "$f" "$(original "$f")"; done <"$tmp/files" >"$tmp/pairs"
PYTHONPATH=$top_srcdir/runtime/python${PYTHONPATH:+:$PYTHONPATH} "$PYTHON" -m kopt.static_gate --each <"$tmp/pairs" >"$tmp/out" 2>&1
exec 3<"$tmp/out"
while IFS= read -r f; do
	case $f in
	*/orig/*) kind=orig ;;
	*) kind=${f%/*}; kind=${kind##*/} ;;
	esac
	name=$kind/${f##*/}
	expect=$(header "$f" expect)
	memcheck=$(header "$f" memcheck)
	if IFS= read -r line <&3; then
		case $line in
		*"$tab"*) rc=${line%%"$tab"*} out=${line#*"$tab"} ;;
		*) rc=none out=$line ;;
		esac
	else
		rc=none out="no line from static_gate --each"
	fi
	if [ "$memcheck" = none ]; then
		case $rc:$out in
		0:*"; memcheck: "*) report not-ok "$name" "want a pass that needs no memcheck, got $out" ;;
		0:*) report ok "$name: $out" ;;
		*) report not-ok "$name" "want a pass that needs no memcheck, got (exit $rc) $out" ;;
		esac
	elif [ -n "$memcheck" ]; then
		case $rc:$out in
		0:pass:*"; memcheck: "*"$memcheck"*) report ok "$name: $out" ;;
		*) report not-ok "$name" "want a pass listing '$memcheck' for the memcheck, got (exit $rc) $out" ;;
		esac
	elif [ -z "$expect" ]; then
		case $rc:$out in
		0:*"; memcheck: "*"differs"*) case $f in
			*/orig/*) report not-ok "$name" "an original checked against itself needs no memcheck: $out" ;;
			*) report ok "$name: $out" ;;
			esac ;;
		0:*) report ok "$name: $out" ;;
		*) report not-ok "$name" "$out" ;;
		esac
	else
		case $rc:$out in
		1:*"$expect"*) report ok "$name: $out" ;;
		*) report not-ok "$name" "want a failure with '$expect', got (exit $rc) $out" ;;
		esac
	fi
done <"$tmp/files"
echo "1..$n"
[ $failed -eq 0 ]
