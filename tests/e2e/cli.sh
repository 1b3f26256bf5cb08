#!/bin/sh
# tests/e2e/cli.sh: the command line as make users expect it, with the
# simulated worker (a test double): each long option does what its short
# one does (--file, --directory, --jobs, --keep-going, --dry-run,
# --always-make, --debug, --tool, --verbose), in both the --opt=ARG and the
# --opt ARG forms; an unknown option is a usage error (2) with a one-line
# hint; ^C exits 130 and SIGTERM 143 (128 + the signal, as a shell says);
# -n, the tools and an empty spec make no .kopt/; options may follow the
# targets (`koptmake one -n`), and -V is --version; -t distclean removes
# the outputs and the whole cache; -t clean says what it freed in bytes,
# KiB or MiB. Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
KOPT_WORKER=$top_builddir/tests/sim-worker
export KOPT_WORKER
# its model files are "# sim:" lines, read by a TEST DOUBLE of the worker's Python
KOPT_PYTHON=$top_srcdir/tests/sim-python
export KOPT_PYTHON
unset KOPT_LAUNCHER KOPT_TRUST_ENV KOPT_SIM_DELAY_MS 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-cli-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$3" 2>/dev/null || true; fi; }

d=$tmp/p
mkdir -p "$d/models"
printf '# model a\nimport torch\n' > "$d/models/a.py"
printf '# model b\n# sim: error capture\nimport torch\n' > "$d/models/b.py"
cat > "$d/s.kopt" <<'EOF'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 1  hot = 0.05  seed = 1 }
gates strict { seeds = 2  gamma = 1.03 }
defaults { device = sim  agents = default  gates = strict }
models m = glob("models/*.py") { }
target all = [m]
target one = ["m/a"]
EOF
km() { rc=0; "$KOPTMAKE" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?; }

# what writes nothing makes no .kopt/ either (make -n writes nothing)
for a in "-n" "--dry-run one" "-t gc" "-t clean" "-t distclean" "-t query" "-t why stitch m/a" "-t check"; do
	km -C "$d" $a
	check "koptmake $a on a fresh folder makes no .kopt/ (exit $rc)" "[ ! -e $d/.kopt ] && [ ! -e $d/kopt-out ]" "$tmp/err"
done
mkdir "$tmp/empty"
echo '# nothing declared yet' > "$tmp/empty/Koptfile"
km -C "$tmp/empty"
check "an empty spec: nothing to do, exit 0, and no .kopt/" "[ $rc -eq 0 ] && grep -q 'nothing to do' $tmp/out && [ ! -e $tmp/empty/.kopt ]" "$tmp/err"
km -C "$d" -t gc
check "-t gc without a cache says there is none" "grep -q 'no cache here yet' $tmp/out" "$tmp/err"

km -C "$d" -f s.kopt -n one; cp "$tmp/out" "$tmp/short"
km --directory="$d" --file=s.kopt --dry-run one
check "--directory= --file= --dry-run print what -C -f -n print" "[ $rc -eq 0 ] && [ -s $tmp/short ] && cmp -s $tmp/out $tmp/short" "$tmp/err"
km --directory "$d" --file s.kopt --dry-run one
check "--directory DIR --file FILE (separate words) too" "[ $rc -eq 0 ] && cmp -s $tmp/out $tmp/short" "$tmp/err"
km -C "$d" --dry-run --debug=explain one
check "--debug=explain says why each step is stale" "[ $rc -eq 0 ] && grep -q 'explain: capture m/a/default' $tmp/err" "$tmp/err"
km -C "$d" --jobs=x
check "--jobs=x: usage error 2, naming the value" "[ $rc -eq 2 ] && grep -q \"not 'x'\" $tmp/err" "$tmp/err"
km -C "$d" --jobs=1 --verbose one
check "--jobs=1 --verbose build the target" "[ $rc -eq 0 ] && [ -f $d/kopt-out/one/report.json ]" "$tmp/err"
km -C "$d" --dry-run --always-make one
check "--always-make: every step stale again, as -B" "[ $rc -eq 0 ] && grep -q '^capture m/a/default' $tmp/out && grep -q '^report one' $tmp/out" "$tmp/err"
km -C "$d" --keep-going all
check "--keep-going: a failed model's capture does not stop the others (exit $rc)" \
	"[ $rc -eq 1 ] && grep -q 'capture m/b/default failed' $tmp/err && [ -f $d/kopt-out/m/a/report.md ]" "$tmp/err"
km -C "$d" --tool=list
check "--tool=list is -t list" "[ $rc -eq 0 ] && grep -q '^koptmake tools:' $tmp/out" "$tmp/err"
km --tool list
check "--tool list (separate word) too" "[ $rc -eq 0 ] && grep -q '^  check ' $tmp/out" "$tmp/err"
# interrupted: 128 + the signal, finished steps kept
for sig in INT:130 TERM:143; do
	rm -rf "$d/.kopt" "$d/kopt-out"
	KOPT_SIM_DELAY_MS=200 "$KOPTMAKE" -C "$d" -k all > "$tmp/out" 2> "$tmp/err" &
	pid=$!
	for _ in $(seq 100); do grep -q '^\[' "$tmp/out" 2>/dev/null && break; sleep 0.05; done
	kill -"${sig%:*}" "$pid"
	rc=0
	wait "$pid" || rc=$?
	check "SIG${sig%:*} stops the build with ${sig#*:} and says so (exit $rc)" \
		"[ $rc -eq ${sig#*:} ] && grep -q 'interrupted: ' $tmp/err" "$tmp/err"
done
km -C "$d" --remote-cache=ftp://example.com/cache one
check "a remote cache URL that is not http(s): exit 2, one error naming it, nothing run" \
	"[ $rc -eq 2 ] && [ \$(wc -l < $tmp/err) -eq 1 ] && grep -q -- '--remote-cache: a remote cache URL starts with http:// or https://' $tmp/err && [ ! -e $d/kopt-out/m/a ]" "$tmp/err"
# options after a target, as make and cargo take them (issue 44)
rm -rf "$d/.kopt" "$d/kopt-out"
km -C "$d" -f s.kopt -n one; cp "$tmp/out" "$tmp/short"
km -C "$d" -f s.kopt one -n
check "an option after a target: 'koptmake one -n' is 'koptmake -n one'" "[ $rc -eq 0 ] && [ -s $tmp/out ] && cmp -s $tmp/out $tmp/short" "$tmp/err"
km -C "$d" one --dry-run -f s.kopt
check "long options and options with an argument after a target too" "[ $rc -eq 0 ] && cmp -s $tmp/out $tmp/short" "$tmp/err"
km -C "$d" -n -- -x
check "after --, an argument is a target, whatever it starts with" "[ $rc -eq 2 ] && grep -q \"'-x'\" $tmp/err" "$tmp/err"
km -V; cp "$tmp/out" "$tmp/V"
km --version
check "-V is --version ($(cat "$tmp/V"))" "[ $rc -eq 0 ] && grep -q '^koptmake [0-9]' $tmp/out && cmp -s $tmp/out $tmp/V" "$tmp/err"
# -t distclean: the outputs and the whole cache go; the next build runs everything (issue 44)
rm -rf "$d/.kopt" "$d/kopt-out"
km -C "$d" one
km -C "$d" -t distclean
check "-t distclean removes kopt-out and .kopt, and says how much" \
	"[ $rc -eq 0 ] && [ ! -e $d/.kopt ] && [ ! -e $d/kopt-out ] && grep -q '^koptmake: distclean: removed [1-9][0-9]* output files (.*) and the cache ./.kopt ([1-9][0-9]* files, ' $tmp/out" "$tmp/out"
km -C "$d" -t distclean
check "-t distclean again: nothing to remove, said" "[ $rc -eq 0 ] && grep -q 'removed 0 output files (0 bytes) and no cache (none at ./.kopt)' $tmp/out" "$tmp/out"
# the cache's count to the byte, where it is small enough to be said in
# bytes: two files planted in a cache that -t gc has opened (and so has
# its action map's header), counted by find
mkdir -p "$d/.kopt/x"
printf 'seven\n\n' > "$d/.kopt/x/notes"
printf 'three' > "$d/.kopt/notes"
km -C "$d" -t gc
cn=$(find "$d/.kopt" -type f ! -path "$d/.kopt/lock" | wc -l | tr -d ' ')
cb=$(find "$d/.kopt" -type f ! -path "$d/.kopt/lock" -exec cat {} + | wc -c | tr -d ' ')
km -C "$d" -t distclean
check "-t distclean of a small cache says its files and bytes as find counts them ($cn files, $cb bytes)" \
	"[ $rc -eq 0 ] && [ $cn -ge 2 ] && [ $cb -lt 10240 ] && grep -q 'and the cache ./.kopt ($cn files, $cb bytes)' $tmp/out" "$tmp/out"
km -C "$d" one
check "the next build runs every step again" "[ $rc -eq 0 ] && grep -q '^\[.*capture m/a/default' $tmp/out" "$tmp/out"
mkdir "$tmp/shared"
mv "$d/.kopt"/* "$tmp/shared/"
rmdir "$d/.kopt"
ln -s "$tmp/shared" "$d/.kopt"
km -C "$d" -t distclean
check "a .kopt that is a link stays, its folder emptied" "[ $rc -eq 0 ] && [ -L $d/.kopt ] && [ -d $tmp/shared ] && [ -z \"\$(ls -A $tmp/shared)\" ]" "$tmp/out"
rm -f "$d/.kopt"
# an unknown target in a folder without a cache: exit 2, said, and no .kopt/ made
rm -rf "$d/.kopt" "$d/kopt-out"
km -C "$d" nosuch
check "an unknown target before any build: exit 2, named, no .kopt/ (exit $rc)" \
	"[ $rc -eq 2 ] && grep -q \"no target or model named 'nosuch'\" $tmp/err && [ ! -e $d/.kopt ]" "$tmp/err"
# -t clean: only the files the rules write go, counted, their bytes said
# in bytes below 10 KiB, in KiB below 10 MiB, in MiB from there
sizes() { rm -rf "$d/kopt-out"; mkdir -p "$d/kopt-out/m/a" "$d/kopt-out/all"; for f in "$@"; do head -c "${f#*=}" /dev/zero > "$d/kopt-out/${f%=*}"; done; }
said=
for c in "m/a/report.md=10239:1 output file, 10239 bytes" "m/a/report.md=10239 all/profile.md=1:2 output files, 10.0 KiB" \
	"all/report.json=10485759:1 output file, 10240.0 KiB" "all/report.json=10485760:1 output file, 10.0 MiB"; do
	sizes ${c%%:*}
	echo kept > "$d/kopt-out/all/notes.txt"
	km -C "$d" -t clean
	[ $rc -eq 0 ] && grep -qx "koptmake: clean: removed ${c#*:} freed" $tmp/out && [ -f "$d/kopt-out/all/notes.txt" ] &&
		[ ! -e "$d/kopt-out/m" ] || said="$said [${c%%:*}: $(cat $tmp/out)]"
done
check "-t clean removes the rules' files only, counted, in bytes, KiB from 10 KiB, MiB from 10 MiB$said" "[ -z '$said' ]"
rm -rf "$d/kopt-out"
# the spec's folder is a name, not a pattern: in a folder named with glob's
# metacharacters its glob matches there, not in a sibling that the name
# would match as a pattern (raxq for r[ab]*?\q)
e="$tmp/r[ab]*?\\q"
mkdir -p "$e" "$tmp/raxq/models"
cp -r "$d/models" "$d/s.kopt" "$e/"
printf '# model z\nimport torch\n' > "$tmp/raxq/models/z.py"
km -f "$e/s.kopt" -t dump
check "a spec in a folder named with [ab], *, ? and a backslash: its glob finds that folder's models, not its sibling raxq's" \
	"[ $rc -eq 0 ] && grep -q '^model \"m/a\"' $tmp/out && grep -q '^model \"m/b\"' $tmp/out && ! grep -q 'm/z' $tmp/out" "$tmp/err"
km --bogus
check "an unknown option: exit 2, getopt's line and a one-line hint" \
	"[ $rc -eq 2 ] && [ \$(wc -l < $tmp/err) -eq 2 ] && grep -q -- \"--help' lists the options\" $tmp/err" "$tmp/err"
echo "1..$n"
