#!/bin/sh
# tests/help.sh: --help and koptmake(1) name what koptmake has: every
# KOPT_* variable the C sources read (getenv), less those koptmake sets for
# its workers itself, and every one koptmake(1)'s ENVIRONMENT names but the
# deployed package's, every tool of -t list, and every option --help lists
# is in the man page's OPTIONS. Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
man=$top_srcdir/man/koptmake.1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-help-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
"$KOPTMAKE" --help > "$tmp/help"
vars=$(cd "$top_srcdir" && find agents common engine gates lang rules runtime src -name '*.c' -exec grep -ho 'getenv("KOPT_[A-Z_]*")' {} + |
	sed 's/getenv("\(.*\)")/\1/' | sort -u)
# those koptmake sets itself for its workers are the protocol's, not the user's
own=$(cd "$top_srcdir" && find engine src -name '*.c' -exec grep -ho '\(setenv\|env_put\)([^"]*"KOPT_[A-Z_]*"' {} + |
	sed 's/.*"\(KOPT_[A-Z_]*\)"/\1/' | sort -u)
check "variables koptmake sets for its workers are told apart ($(echo $own))" "[ -n \"$own\" ]"
vars=$(for v in $vars; do echo "$own" | grep -qx "$v" || echo "$v"; done)
sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$man" > "$tmp/env"
for v in $vars; do
	check "$v is in --help" "grep -q '^  $v' $tmp/help"
	check "$v is in koptmake(1)'s ENVIRONMENT" "grep -qx '.B $v' $tmp/env"
done
check "the sources read KOPT_LLM_BACKOFF_MS (this test sees getenv)" "echo '$vars' | grep -qx KOPT_LLM_BACKOFF_MS"
# and what the worker's Python reads that koptmake(1) documents (issue 44:
# KOPT_COMPILE_JOBS and KOPT_MEMCHECK), less the deployed package's own
# (KOPT_DEPLOY_*, read by the user's program, not by koptmake's workers)
pyvars=$(sed -n 's/^\.B \(KOPT_[A-Z_]*\)$/\1/p' "$tmp/env" | grep -v '^KOPT_DEPLOY_' | sort -u)
check "koptmake(1) documents KOPT_COMPILE_JOBS and KOPT_MEMCHECK (this test sees them)" \
	"echo '$pyvars' | grep -qx KOPT_COMPILE_JOBS && echo '$pyvars' | grep -qx KOPT_MEMCHECK"
for v in $pyvars; do
	echo "$vars" | grep -qx "$v" && continue
	check "$v (koptmake(1)'s ENVIRONMENT) is in --help" "grep -q '^  $v\b\|^  .*, $v ' $tmp/help"
done
sed -n '/^\.BI "\\-t /,/^\.TP/p' "$man" > "$tmp/tools"
for t in $("$KOPTMAKE" -t list | sed -n 's/^  \([a-z]*\) .*/\1/p'); do
	check "tool $t is in --help" "sed -n '/^koptmake tools:/,/^\$/p' $tmp/help | grep -q '^  $t '"
	check "tool $t is in koptmake(1)" "grep -qx '.B $t' $tmp/tools"
done
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man" | sed -n 's/^\.B[IR]* "\{0,1\}\\-\([A-Za-z]\).*/\1/p' > "$tmp/opts"
for o in $(sed -n 's/^  -\([A-Za-z]\)[ ,].*/\1/p' "$tmp/help"); do
	check "option -$o is in koptmake(1)'s OPTIONS" "grep -qx $o $tmp/opts"
done
# the long ones: '\-\-name' in the man page's option lines
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man" | grep '^\.B' | sed 's/\\-/-/g' > "$tmp/lopts"
for o in $( (sed -n 's/^  -[A-Za-z], \(--[a-z-]*\).*/\1/p' "$tmp/help"; sed -n 's/^  \(--[a-z-]*\)[= ].*/\1/p' "$tmp/help") | sort -u); do
	check "option $o is in koptmake(1)'s OPTIONS" "grep -q -- '$o\\b' $tmp/lopts"
done
echo "1..$n"
