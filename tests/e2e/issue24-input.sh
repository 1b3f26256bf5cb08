#!/bin/sh
# tests/e2e/issue24-input.sh: issue 24's odd input, through koptmake:
#   - a spec with a 1 MB line and an error at its end: the diagnostic shows
#     a window of the line and goes out in a few write() calls (counted
#     with strace where there is one; 1,048,729 before);
#   - a build log that cannot be written (read-only; as root, where modes
#     do not hold, a folder in its place) is an error: nothing runs and
#     the build exits 1 (it said so and exited 0); a null build, which
#     writes nothing to it, still succeeds;
#   - a profile reply with a negative, non-numeric or absurd time (more
#     than an hour a call), or a kernel with negative launches a call or a
#     share of device time past 1.5, fails its step with the reason, and
#     nothing of it is kept (it was taken as measured);
#   - a verify that fails shows as an error in the model's report.md with
#     why (the reason was empty);
#   - two models of the same bytes: each keeps its own outputs, the steps
#     they share a key for run once, and a null build runs nothing (19
#     steps ran again: both wrote their result under the one key);
#   - planning grows linearly with the models: -n over a glob of 40,000
#     files takes less than 9 times as long as over 10,000 (a model lookup
#     was linear: 16 times, and 35 s for 100,000);
#   - device.gpu is compared with the GPU the worker reports, in any case
#     and as a part of its name: a mismatch is one error, nothing runs and
#     the build exits 1 (it ran, and reported the other GPU's numbers);
#     a remembered environment of another GPU is read again (trusted, it
#     refused every build once the project was on the right GPU);
#   - with its witnesses unchanged a null build starts no worker, and one
#     for its hello where workers start through a launcher;
# Prints TAP.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" i24-input

# a 1 MB line, the error at its end
awk 'BEGIN { printf "X = \""; for (i = 0; i < 16384; i++) printf "%064d", 0; print "\"  Y = nosuchvar" }' > long.kopt
rc=0
"$KOPTMAKE" -t check -f long.kopt > out 2> err || rc=$?
check "a 1 MB line with an error at its end: exit 2, the error named at its column" \
	"[ $rc -eq 2 ] && grep -q \"^long.kopt:1:1048589: error: undefined variable 'nosuchvar'\" err"
check "the source line shows as a window of at most 170 bytes, cut with '...'" \
	"[ \$(sed -n 2p err | wc -c) -le 170 ] && sed -n 2p err | grep -q '^\.\.\.0*\"  Y = nosuchvar\$'"
check "and its caret as long" "[ \$(sed -n 3p err | wc -c) -le 170 ] && sed -n 3p err | grep -q '^ *^~~~~~~~~\$'"
if command -v strace > /dev/null 2>&1 && strace -o /dev/null true 2> /dev/null; then
	# LeakSanitizer cannot run under ptrace (the sanitizer pass): off here
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=write -o writes.log "$KOPTMAKE" -t check -f long.kopt > /dev/null 2>&1 || true
	# to stderr (a coverage build's exit writes its .gcda files besides)
	nw=$(grep -c '^[0-9]* *write(2,' writes.log || true)
	check "a diagnostic goes out in a write or two ($nw write() calls to stderr)" "[ $nw -ge 1 ] && [ $nw -le 10 ]"
else
	n=$((n + 1)); echo "ok $n - a diagnostic goes out in a write or two # SKIP no strace here"
fi

# a build log that cannot be written
mkdir -p ro/models
printf '# model\nimport torch\n# sim: kernels 1\n' > ro/models/a.py
cat > ro/Koptfile <<'SPEC'
device sim { gpus = 1  timeout = 30s }
agents default { budget = 1  hot = 0.05  seed = 1  screen = 0 }
defaults { device = sim  agents = default }
model a { source = "models/a.py" }
target all = [a]
SPEC
cd ro
rc=0
"$KOPTMAKE" all > out 2> err || rc=$?
check "a first build succeeds" "[ $rc -eq 0 ] && [ -s .kopt/log ]"
printf '# sim: host 0.1\n' >> models/a.py
if [ "$(id -u)" -eq 0 ]; then
	rm .kopt/log && mkdir .kopt/log
	what="a folder where the log goes (root ignores modes)"
else
	chmod a-w .kopt/log
	what="a read-only log"
fi
: > "$KOPT_SIM_LOG"
rc=0
"$KOPTMAKE" all > out 2> err || rc=$?
check "$what: exit 1" "[ $rc -eq 1 ]"
check "with an error naming the log" "grep -q \"error: cannot \\(read\\|write\\) the build log '.*\\.kopt/log'\" err"
check "said once" "[ \$(grep -c 'the build log' err) -eq 2 ] && grep -q 'not started: the build log cannot record them' err"
check "and nothing ran" "[ ! -s '$KOPT_SIM_LOG' ] && ! grep -q 'nothing to do' out"
if [ "$(id -u)" -eq 0 ]; then rmdir .kopt/log; else chmod u+w .kopt/log; fi
"$KOPTMAKE" all > /dev/null 2>&1
if [ "$(id -u)" -eq 0 ]; then rm .kopt/log && mkdir .kopt/log; else chmod a-w .kopt/log; fi
rc=0
"$KOPTMAKE" all > out 2> err || rc=$?
check "a null build writes nothing to the log: exit 0, nothing to do" "[ $rc -eq 0 ] && grep -q 'nothing to do' out && [ ! -s err ]"
cd ..

# worker replies with times that cannot be
mkdir -p bt/models
for w in negative nan huge launches share; do
	printf '# model\nimport torch\n# sim: kernels 2\n# sim: badtime %s\n' $w > bt/models/$w.py
done
printf '# model\nimport torch\n# sim: kernels 2\n' > bt/models/fine.py
cat > bt/Koptfile <<'SPEC'
device sim { gpus = 1  timeout = 30s }
agents default { budget = 1  hot = 0.05  seed = 1  screen = 0 }
defaults { device = sim  agents = default }
models m = glob("models/*.py")
target all = [m]
SPEC
cd bt
rc=0
"$KOPTMAKE" -k all > out 2> err || rc=$?
check "profiles with bad times: the build fails (exit $rc)" "[ $rc -eq 1 ]"
check "a negative kernel time is refused, saying which" \
	"grep -q \"profile m/negative/default failed: the worker's profile is not believable: kernels\\[0\\].ns_per_call is -1000 ns, below zero\" err"
check "a time that is not a number is refused" \
	"grep -q \"profile m/nan/default failed: .*kernels\\[0\\].ns_per_call is \\\"NaN\\\", not a number\" err"
check "more than an hour a call is refused" \
	"grep -q 'profile m/huge/default failed: .*model_ns_per_call is 7.2e+12 ns, more than an hour a call' err"
check "negative launches a call are refused, saying which" \
	"grep -q \"profile m/launches/default failed: the worker's profile is not believable: kernels\\[0\\].launches_per_call is -2\$\" err"
check "a kernel's share of device time past 1.5 is refused" \
	"grep -q \"profile m/share/default failed: the worker's profile is not believable: kernels\\[0\\].share is 2.5, not a share of device time\$\" err"
check "no profile of theirs is written; the good model's is" \
	"[ ! -e kopt-out/m/negative/profile.json ] && [ ! -e kopt-out/m/huge/profile.json ] && [ ! -e kopt-out/m/launches/profile.json ] &&
	 [ ! -e kopt-out/m/share/profile.json ] && [ -s kopt-out/m/fine/profile.json ]"
: > "$KOPT_SIM_LOG"
"$KOPTMAKE" -k all > out 2> err || true
check "nothing of them was cached: the next build asks again" "[ \$(grep -c '^profile m/' '$KOPT_SIM_LOG') -eq 5 ]"
cd ..

# an error verdict's reason in report.md
mkdir -p ev/models
printf '# model\nimport torch\n# sim: kernels 1\n# sim: error verify\n' > ev/models/e.py
cat > ev/Koptfile <<'SPEC'
device sim { gpus = 1  timeout = 30s }
agents default { budget = 1  hot = 0.05  seed = 1  screen = 0 }
defaults { device = sim  agents = default }
model e { source = "models/e.py" }
target all = [e]
SPEC
cd ev
"$KOPTMAKE" -k all > out 2> err || true
check "a failed verify's row in report.md: error, and why" \
	"grep -q '^| 0 | .* | error | - | worker error: simulated failure in verify |\$' kopt-out/e/report.md"
cd ..

# two models of the same bytes
mkdir -p twins/models
printf '# model\nimport torch\n# sim: kernels 3\n' > twins/models/a.py
cp twins/models/a.py twins/models/b.py
cat > twins/Koptfile <<'SPEC'
device sim { gpus = 2  timeout = 30s }
agents default { budget = 3  hot = 0.05  seed = 1  screen = 5s }
defaults { device = sim  agents = default }
model a { source = "models/a.py" }
model b { source = "models/b.py" }
target all = [a, b]
SPEC
cd twins
: > "$KOPT_SIM_LOG"
rc=0
"$KOPTMAKE" -j 4 all > out 2> err || rc=$?
check "two models of the same bytes build" "[ $rc -eq 0 ] && [ -s kopt-out/a/report.md ] && [ -s kopt-out/b/report.md ]"
check "each with its own outputs" "head -n 1 kopt-out/a/report.md | grep -qx '# a' && head -n 1 kopt-out/b/report.md | grep -qx '# b' && [ -s kopt-out/b/profile.json ]"
check "the capture they share a key for ran once" "[ \$(grep -c '^capture ' '$KOPT_SIM_LOG') -eq 1 ]"
rc=0
"$KOPTMAKE" -d explain all > out 2> err || rc=$?
check "a null build after them runs nothing" "[ $rc -eq 0 ] && grep -q 'nothing to do' out && [ ! -s err ]"
"$KOPTMAKE" -B -j 4 all > /dev/null 2>&1 || true
"$KOPTMAKE" all > out 2> err || true
check "nor after -B" "grep -q 'nothing to do' out"
# -t gc compacts the agents' memory: each verdict once, the version line kept
nl=$(wc -l < .kopt/memory.jsonl)
sed 1d .kopt/memory.jsonl >> .kopt/memory.jsonl
printf '{"torn' >> .kopt/memory.jsonl
"$KOPTMAKE" -t memory > mem.before 2>&1
"$KOPTMAKE" -t gc > out 2> err || true
check "-t gc compacts memory.jsonl: $((nl - 1)) lessons kept, $((nl - 1)) repeats and a torn line removed" \
	"grep -q 'gc: .*memory.jsonl: $((nl - 1)) lessons kept, $nl lines removed' out && [ \$(wc -l < .kopt/memory.jsonl) -eq $nl ] && head -n 1 .kopt/memory.jsonl | grep -qx '{\"kopt-memory\":1}'"
"$KOPTMAKE" -t memory > mem.after 2>&1
check "and the memory says what it said" "cmp -s mem.before mem.after"
# the counts' nouns follow them: one lesson and one line, none
head -n 2 .kopt/memory.jsonl > mem.one && sed -n 2p .kopt/memory.jsonl >> mem.one && cp mem.one .kopt/memory.jsonl
"$KOPTMAKE" -t gc > out 2> err || true
"$KOPTMAKE" -t gc > out2 2> err || true
check "-t gc: 1 lesson kept, 1 line removed; then 0 lines removed" \
	"grep -q 'memory.jsonl: 1 lesson kept, 1 line removed' out && grep -q 'memory.jsonl: 1 lesson kept, 0 lines removed' out2"
cd ..

# -n over big globs
for size in 10000 40000; do
	mkdir -p big$size/models
	seq 1 $size | sed 's,.*,big'$size'/models/m&.py,' | xargs touch
	cat > big$size/Koptfile <<'SPEC'
device sim { gpus = 1  timeout = 30s }
agents default { budget = 2  hot = 0.05  seed = 1 }
defaults { device = sim  agents = default }
models kb = glob("models/*.py")
target all = [kb]
SPEC
done
best() { # the fastest of three runs of -n in folder $1, in seconds
	b=
	for i in 1 2 3; do
		t0=$(date +%s.%N)
		"$KOPTMAKE" -C "$1" -n > "$1/out" 2>&1 || true
		t=$(awk "BEGIN { printf \"%.3f\", $(date +%s.%N) - $t0 }")
		if [ -z "$b" ] || awk "BEGIN { exit !($t < $b) }"; then b=$t; fi
	done
	echo "$b"
}
t1=$(best big10000)
t4=$(best big40000)
check "-n over 40,000 models: under 9 times 10,000's (${t4} s against ${t1} s)" \
	"grep -q '^120001 steps would run' big40000/out && awk 'BEGIN { exit !($t4 < 9 * $t1) }'"
rm -rf big10000 big40000

# device.gpu against the worker's GPU
mkdir -p gpu/models
printf '# model\nimport torch\n# sim: kernels 1\n' > gpu/models/g.py
cat > gpu/Koptfile <<'SPEC'
device sim { gpu = "h200"  gpus = 1  timeout = 30s }
agents default { budget = 1  hot = 0.05  seed = 1  screen = 0 }
defaults { device = sim  agents = default }
model g { source = "models/g.py" }
target all = [g]
SPEC
cd gpu
: > "$KOPT_SIM_LOG"
rc=0
KOPT_SIM_GPU="NVIDIA A100-SXM4-80GB" "$KOPTMAKE" -k all > out 2> err || rc=$?
check "a worker on another GPU: exit 1" "[ $rc -eq 1 ]"
check "one error naming both GPUs" \
	"[ \$(grep -c error: err) -eq 1 ] && grep -q \"error: device 'sim' wants a GPU named like 'h200', and its worker runs on 'NVIDIA A100-SXM4-80GB'\" err"
check "and nothing ran on it" "[ ! -s '$KOPT_SIM_LOG' ] && [ ! -e kopt-out/g ]"
rc=0
"$KOPTMAKE" all > out 2> err || rc=$?
check "'h200' matches 'NVIDIA H200 (simulated)': the build runs" "[ $rc -eq 0 ] && [ -s kopt-out/g/report.md ]"
# the remembered environment trusted, a worker that says otherwise when it starts
printf '# sim: host 0.06\n' >> models/g.py
: > "$KOPT_SIM_LOG"
rc=0
KOPT_TRUST_ENV=1 KOPT_SIM_GPU="NVIDIA A100-SXM4-80GB" "$KOPTMAKE" all > out 2> err || rc=$?
check "a worker that starts on another GPU mid-build: exit 1, one error, its step cancelled" \
	"[ $rc -eq 1 ] && [ \$(grep -c error: err) -eq 1 ] && grep -q \"runs on 'NVIDIA A100-SXM4-80GB'\" err && [ ! -s '$KOPT_SIM_LOG' ]"
# a worker that names witnesses, unchanged: a remembered environment of the
# wrong GPU is checked again, so the project works once on the right one
# (it was trusted, and every build refused to start a worker)
echo 'torch 2.11' > version.txt
rc=0
KOPT_SIM_WITNESS="$PWD/version.txt" KOPT_SIM_GPU="NVIDIA A100-SXM4-80GB" "$KOPTMAKE" all > out 2> err || rc=$?
check "witnesses named, another GPU: exit 1" "[ $rc -eq 1 ] && grep -q \"runs on 'NVIDIA A100-SXM4-80GB'\" err && grep -q 'witness:sim' .kopt/env"
: > "$KOPT_SIM_LOG"
rc=0
KOPT_SIM_WITNESS="$PWD/version.txt" "$KOPTMAKE" all > out 2> err || rc=$?
check "the same witnesses on the right GPU: the environment is read again and the build runs" \
	"[ $rc -eq 0 ] && ! grep -q error: err && [ -s '$KOPT_SIM_LOG' ]"
# the witnesses unchanged: a null build starts no worker; with workers
# started through a launcher (on files koptmake cannot see), one, for its
# hello, at every build. The worker is started through a wrapper that
# counts its starts (a test double around the simulated worker)
printf '#!/bin/sh\necho started >>"%s"\nexec "%s" "$@"\n' "$PWD/starts" "$KOPT_WORKER" > counting-worker
printf '#!/bin/sh\nexec "$@"\n' > launcher
chmod +x counting-worker launcher
rc=0
KOPT_WORKER=$PWD/counting-worker KOPT_SIM_WITNESS="$PWD/version.txt" "$KOPTMAKE" all > out 2> err || rc=$?
check "witnesses unchanged: a null build starts no worker" "[ $rc -eq 0 ] && grep -q 'nothing to do' out && [ ! -e starts ]"
rc=0
KOPT_WORKER=$PWD/counting-worker KOPT_LAUNCHER=$PWD/launcher KOPT_SIM_WITNESS="$PWD/version.txt" "$KOPTMAKE" all > out 2> err || rc=$?
check "... through a launcher, one started for its hello, and nothing run" \
	"[ $rc -eq 0 ] && grep -q 'nothing to do' out && [ \"\$(wc -l < starts)\" -eq 1 ]"
cd ..

echo "1..$n"
