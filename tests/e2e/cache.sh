#!/bin/sh
# tests/e2e/cache.sh: the cache and the build log as a user meets them,
# with the simulated worker (a TEST DOUBLE): a clean build says nothing on
# stderr; a target named twice is built once; -t query and -t why find
# every step, the first of the graph too, and name the nearest for a typo; corrupt action records are
# reported one by one up to five, then once for the rest, and rebuilt;
# a corrupt environment file is reported and forgotten; -t gc says how
# many bytes it freed; -t clean leaves a user's own files that only look
# like outputs; after -t clean the next build says it restored the
# outputs from the cache, and an output whose object is gone from the cache
# too is made again by its step alone; the log keeps every run's record of a step; an
# actions file that cannot be read is said to be unreadable. Prints
# TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" cache
mkdir models
printf '# model a\n# sim: kernels 2\n# sim: speedup 1.2\nimport torch\n' > models/a.py
printf '# model b\n# sim: kernels 1\n# sim: speedup 1.2\nimport torch\n' > models/b.py
spec() {
	cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 60s }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  gamma = ${GAMMA:-1.03}  repeats = 10 }
defaults { device = sim  agents = default  gates = strict }
model a { source = "models/a.py"  variant default { }  variant autotune { mode = "max-autotune-no-cudagraphs" } }
model b { source = "models/b.py" }
target all = [a, b]
default all
SPEC
}
spec
run() { set +e; "$KOPTMAKE" "$@" > out 2> err; status=$?; set -e; }

run
check "a fresh build succeeds (exit $status) and prints nothing on stderr" "[ $status -eq 0 ] && [ ! -s err ]"
[ ! -s err ] || sed 's/^/# /' err

run -n all all
check "a target named twice: its report is one step" "[ $status -eq 0 ] && [ \$(grep -c '^report all\$' out) -le 1 ] && [ \"\$(cat out)\" = '0 steps would run' ]"
GAMMA=1.05 spec
run -n all all
check "... and listed once when stale ($(grep -c '^report all$' out))" "[ \$(grep -c '^report all\$' out) -eq 1 ]"
run all all
check "... and run once" "[ $status -eq 0 ] && [ \$(grep -c '\\] report all\$' out) -eq 1 ]"
spec

# every step of the graph is found by its kind and path
run -t query
steps=$(awk '{ print $2 " " $3 }' out)
missing=0
nsteps=0
for s in $(printf '%s\n' "$steps" | tr ' ' '@'); do
	s=$(printf '%s' "$s" | tr '@' ' ')
	nsteps=$((nsteps + 1))
	"$KOPTMAKE" -t query "$s" > q 2> qe || missing=$((missing + 1))
	grep -q '^  key  *[0-9a-f]\{32\}$' q || missing=$((missing + 1))
done
check "-t query KIND PATH finds each of the $nsteps steps, the first listed ($(printf '%s\n' "$steps" | head -n 1)) too" \
	"[ $nsteps -gt 10 ] && [ $missing -eq 0 ]"
# a step named with a typo gets the nearest name, as a target does (issue 44)
first='capture a/autotune'
typo=$(printf '%s' "$first" | sed 's/.$/q/')
run -t why "$typo"
check "-t why '$typo': exit 2, did you mean '$first'?" "[ $status -eq 2 ] && grep -qx \"koptmake: error: no step '$typo' (did you mean '$first'?)\" err"
run -t query "${typo#capture }"
check "-t query with a bare path's typo too" "[ $status -eq 2 ] && grep -q \"(did you mean '${first#capture }'?)\" err"
run -t why stitch zzz
check "... and a name near none says how to find one" "[ $status -eq 2 ] && grep -q \"no step 'stitch zzz' (some are known once an earlier step has run; try -t query)\" err"

# corrupt action records: seven, each with a byte of its manifest changed
cp .kopt/actions actions.good
awk 'NR > 1 && NR <= 8 { sub(/"kind":"/, "\"kind\":\"x") } { print }' actions.good > .kopt/actions
run -n
warned=$(grep -c 'corrupt cache entry ignored (checksum mismatch); the step will run again' err || true)
more=$(grep -c 'more corrupt entries ignored' err || true)
check "seven corrupt records: five warnings, then one for the rest ($warned, $more)" "[ $warned -eq 5 ] && [ $more -eq 1 ]"
check "... and their steps are stale" "! grep -q '^0 steps would run' out"
run
check "... and run again (exit $status)" "[ $status -eq 0 ] && grep -q '\\] capture a/default\$' out"

# a corrupt environment file: one byte of its JSON changed, the checksum kept
sed -i 's/"NVIDIA H200 (simulated)"/"NVIDIA H200 (simulatex)"/' .kopt/env
run -n
check "a corrupt environment file is reported and forgotten" \
	"grep -q \"env' is corrupt; the environment fingerprints are forgotten\" err"

# -t gc after a change: the old verifies, stitches and report go
GAMMA=1.1 spec
run
cache_bytes() { find .kopt/objects .kopt/actions -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
recs_before=$(($(wc -l < .kopt/actions) - 1))
bytes_before=$(cache_bytes)
# a dotfile in an objects folder is nobody's object: -t gc leaves it
dotdir=$(ls -d .kopt/objects/?? | head -n 1)
echo mine > "$dotdir/.keep"
run -t gc
check "-t gc leaves a dotfile in an objects folder alone" "[ -f '$dotdir/.keep' ]"
rm -f "$dotdir/.keep"
recs_after=$(($(wc -l < .kopt/actions) - 1))
bytes_after=$(cache_bytes)
freed=$(sed -n 's/.*gc: removed \([0-9]*\) cache entr[a-z]* and \([0-9]*\) objects*, \(.*\) freed$/\1 \3/p' out)
check "-t gc removes the old entries and says how many, and how much it freed ($freed; $recs_before records, then $recs_after)" \
	"[ $status -eq 0 ] && [ -n \"$freed\" ] && [ \"\${freed%% *}\" -eq $((recs_before - recs_after)) ] && [ $recs_after -gt 0 ] && ! printf '%s' \"$freed\" | grep -q ' 0 B\$'"
# every object a record kept by -t gc names is still in the store
missing_objs=$(python3 -c '
import json, os, sys
n = 0
with open(".kopt/actions") as f:
    next(f)
    for line in f:
        m = json.loads(line.split(" ", 2)[2].rsplit(" ", 1)[0])
        for field in ("objects", "outputs"):
            for v in (m.get(field) or {}).values():
                h = v["hash"] if isinstance(v, dict) else v
                n += not os.path.exists(".kopt/objects/%s/%s" % (h[:2], h[2:]))
print(n)')
check "... and keeps every object a kept record names ($missing_objs missing)" "[ \"$missing_objs\" = 0 ]"
# what it says it freed is what the objects and the action map shrank by, to the tenth of a unit
check "... and the bytes it says it freed are those the cache lost ($bytes_before, then $bytes_after)" \
	"printf '%s\n' \"\${freed#* }\" | awk -v d=$((bytes_before - bytes_after)) '{ u = \$2 == \"KiB\" ? 1024 : \$2 == \"MiB\" ? 1048576 : 1; x = \$1 * u; exit !(d > 0 && x - d <= 0.05 * u + 0.5 && d - x <= 0.05 * u + 0.5) }'"

# -t clean removes every output, a second variant's profile-NAME.* too, and counts them
nfiles=$(find kopt-out -type f | wc -l)
run -t clean
check "-t clean removes all $nfiles output files (profile-autotune.md among them) and says so" \
	"[ $status -eq 0 ] && [ $nfiles -gt 10 ] && grep -q 'clean: removed $nfiles output files, ' out && [ \$(find kopt-out -type f 2>/dev/null | wc -l) -eq 0 ]"
run
restored=$(sed -n 's|^koptmake: nothing to run; \([0-9]*\) output files restored from the cache into ./kopt-out$|\1|p' out)
check "... and the next build restores them without running a step, and says so ($restored restored; the seals are written anew)" "[ $status -eq 0 ] && [ \$(find kopt-out -type f | wc -l) -eq $nfiles ] && [ -f kopt-out/a/profile-autotune.md ] && [ \$(wc -l < out) -eq 1 ] && [ \"\${restored:-0}\" -gt 10 ] && [ \"\${restored:-0}\" -le $nfiles ]"

# one output gone: restored alone, said in the singular
rm -f kopt-out/a/profile-autotune.md
run
check "... one output file gone: the next build restores it alone and says so in the singular" \
	"[ $status -eq 0 ] && [ -f kopt-out/a/profile-autotune.md ] && grep -qx 'koptmake: nothing to run; 1 output file restored from the cache into ./kopt-out' out"

# an output gone and the cache's objects gone too: the step that wrote it
# cannot restore it, so it runs again (not the whole build), and the file
# comes back
rm -f kopt-out/a/profile-autotune.md
mv .kopt/objects objects.saved
mkdir .kopt/objects
run
check "... its object gone from the cache too: that profile runs again and the file is back (exit $status)" \
	"[ $status -eq 0 ] && [ -f kopt-out/a/profile-autotune.md ] && grep -q '\\] profile a/autotune\$' out && ! grep -q '\\] capture b\$' out"
[ $status -eq 0 ] && grep -q '\] profile a/autotune$' out || sed 's/^/# /' out err
cp -R objects.saved/. .kopt/objects/
rm -rf objects.saved
run
check "... and with the other objects back beside the new ones, nothing to do" \
	"[ $status -eq 0 ] && grep -qx 'koptmake: nothing to do' out"

# ... or there but not what it was (each object cut to one byte): the
# same, each found out where it is read
rm -f kopt-out/a/profile-autotune.md
cp -R .kopt/objects objects.saved
find .kopt/objects -type f ! -name '*.tmp*' -exec sh -c 'printf x > "$1"' _ {} \;
run
check "... its object cut short in the cache: the output is made again, not restored from it (exit $status)" \
	"[ $status -eq 0 ] && [ -f kopt-out/a/profile-autotune.md ] && grep -q '\\] profile a/autotune\$' out"
[ $status -eq 0 ] && [ -f kopt-out/a/profile-autotune.md ] || sed 's/^/# /' out err
rm -rf .kopt/objects
mv objects.saved .kopt/objects
run

# -t clean leaves a user's own files that only look like outputs: profiles.md
# and profileX.json are not profile-NAME.*
printf 'notes\n' > kopt-out/a/profiles.md
printf '{}\n' > kopt-out/a/profileX.json
# and removes what a variant of a short name left (profile-NAME.*, however short NAME)
printf '{}\n' > kopt-out/a/profile-cg.json
printf 'x\n' > kopt-out/a/profile-x.md
run -t clean
check "-t clean keeps a user's profiles.md and profileX.json beside the outputs; removes profile-cg.json and profile-x.md" \
	"[ $status -eq 0 ] && [ -f kopt-out/a/profiles.md ] && [ -f kopt-out/a/profileX.json ] && [ ! -f kopt-out/a/profile-autotune.md ] && [ ! -f kopt-out/a/profile-cg.json ] && [ ! -f kopt-out/a/profile-x.md ] && grep -q 'clean: removed $((nfiles + 2)) output files, ' out"
rm -f kopt-out/a/profiles.md kopt-out/a/profileX.json
run

# the log: one record per run of a step, the earlier runs kept
runs=$(awk -F'\t' '$4 == "stitch" && $5 == "a" { n++ } END { print n + 0 }' .kopt/log)
check "the log holds each run of stitch a ($runs)" "[ $runs -ge 2 ]"
check "the log's durations are the steps' wall time in ms" \
	"awk -F'\\t' 'NR > 1 && \$3 == \"ok\" && \$4 == \"capture\" && (\$2 < 0 || \$2 > 60000) { bad++ } END { exit bad > 0 }' .kopt/log"

# an actions file that cannot be read (a FIFO in its place: pread fails) is
# reported as such, the build stopped, and nothing written over it
mv .kopt/actions actions.saved
mkfifo .kopt/actions
run
check "an actions file that cannot be read: 'cannot read' it, exit $status" \
	"[ $status -ne 0 ] && grep -q \"error: cannot read '.*\\.kopt/actions': \" err && ! grep -q 'cannot write' err && [ -p .kopt/actions ]"
[ $status -ne 0 ] && grep -q "cannot read" err || sed 's/^/# /' err
rm -f .kopt/actions
mv actions.saved .kopt/actions

# a spec in a folder below: the build's last line names the report there,
# as a path from here (the folder kept whole, no "./" before it)
mkdir -p below
cp -R models test.kopt below/
run -f below/test.kopt all
check "a spec in a folder below (-f below/test.kopt): the last line names below/kopt-out/all/report.md" \
	"[ $status -eq 0 ] && tail -n 1 out | grep -q '; below/kopt-out/all/report.md\$'"
[ $status -eq 0 ] && tail -n 1 out | grep -q '; below/kopt-out/all/report.md$' || sed 's/^/# /' out err

# -t gc where the spec reaches nothing of the cache (both models changed):
# every entry and every object goes
mkdir reach && cp -R .kopt test.kopt reach/ && mkdir reach/models
printf '# model a, new\n# sim: kernels 1\nimport torch\n' > reach/models/a.py
printf '# model b, new\n# sim: kernels 1\nimport torch\n' > reach/models/b.py
status=0
(cd reach && "$KOPTMAKE" -t gc > out 2> err) || status=$?
check "-t gc, the spec reaching nothing: every entry and every object removed, exit $status ($(head -n 1 reach/out))" \
	"[ $status -eq 0 ] && grep -q 'gc: removed [1-9][0-9]* cache entries and [1-9][0-9]* objects' reach/out && [ \$(wc -l < reach/.kopt/actions) -eq 1 ] && [ -z \"\$(find reach/.kopt/objects -type f)\" ]"

echo "1..$n"
