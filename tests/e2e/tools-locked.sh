#!/bin/sh
# tests/e2e/tools-locked.sh: the tools that read or change the cache while
# another koptmake holds it (its lock taken with flock(1), as a build
# takes it): each waits KOPT_LOCK_WAIT_MS (2 s by default), says who holds the cache, exits
# 2 and changes nothing; a build does the same; -t memory, which only
# reads a file that is only appended to, needs no lock. -t why without a
# step says how to name one. With the simulated worker (a TEST DOUBLE). Prints TAP.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" tools-locked
if ! command -v flock > /dev/null 2>&1; then
	echo "1..0 # SKIP no flock(1)"
	exit 0
fi
mkdir models
printf '# model m\n# sim: kernels 1\nimport torch\n' > models/m.py
cat > test.kopt <<'SPEC'
device sim { gpus = 1  timeout = 30s }
agents default { budget = 1  hot = 0.05  seed = 1  screen = 0 }
defaults { device = sim  agents = default }
model m { source = "models/m.py" }
target all = [m]
SPEC
"$KOPTMAKE" all > out 2> err
check "a first build" "[ -f kopt-out/all/report.md ]"
ls -R .kopt kopt-out > before
printf '# model m, changed\n# sim: kernels 1\nimport torch\n' > models/m.py
KOPT_LOCK_WAIT_MS=100
export KOPT_LOCK_WAIT_MS
ops=$(wc -l < sim.log)
for t in "-t why stitch m" "-t query" "-t query stitch m" "-t gc" "-t clean" "-t distclean" "all"; do
	rc=0
	# shellcheck disable=SC2086 # the tool and its words
	flock .kopt/lock sh -c 'echo 4242 > .kopt/lock; "$0" "$@"' "$KOPTMAKE" $t > out 2> err || rc=$?
	check "'koptmake $t' while another holds the cache: exit 2, who holds it said ($rc: $(tail -n 1 err))" \
		"[ $rc -eq 2 ] && grep -q \"error: the cache '.*\\.kopt' is in use by another koptmake (pid 4242); try again when it is done\" err"
done
# without KOPT_LOCK_WAIT_MS, the wait is koptmake(1)'s default, 2 s:
# not given up on sooner, nor waited for twice as long
unset KOPT_LOCK_WAIT_MS
# (what it cost meanwhile, with flock's and sh's: processor time and
# voluntary context switches, from Python's getrusage of its children)
rc=0
t0=$(date +%s%N)
use=$(python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=open("out", "w"), stderr=open("err", "w")).returncode
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r, int((u.ru_utime + u.ru_stime) * 1000), u.ru_nvcsw)' flock .kopt/lock sh -c 'echo 4242 > .kopt/lock; "$0" "$@"' "$KOPTMAKE" -t query)
set -- $use
rc=$1 cpu=$2 switches=$3
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "the default wait: 2 s, then exit 2 ($rc after $ms ms)" "[ $rc -eq 2 ] && [ $ms -ge 1950 ] && [ $ms -lt 3800 ]"
# a few tries a second, asleep between them: a wait that polled in a loop
# yields tens of thousands of times (a sleep of 0), or spins on the
# processor for the whole wait (no sleep)
check "... asleep between tries: $switches voluntary switches, $cpu ms of processor time in $ms ms" \
	"[ $switches -lt 2000 ] && [ $cpu -lt 1000 ]"
KOPT_LOCK_WAIT_MS=100
export KOPT_LOCK_WAIT_MS
ls -R .kopt kopt-out > after
check "nothing in the cache or the outputs changed" "cmp -s before after"
check "... and no worker ran (the changed model was not built)" "[ \$(wc -l < sim.log) -eq $ops ]"
rc=0
flock .kopt/lock "$KOPTMAKE" -t memory > out 2> err || rc=$?
check "-t memory reads the agents' memory without the lock (it only appends): exit 0" "[ $rc -eq 0 ] && [ ! -s err ]"
rc=0
"$KOPTMAKE" -t why > out 2> err || rc=$?
check "-t why without a step: exit 2, with how to name one" \
	"[ $rc -eq 2 ] && grep -q 'usage: koptmake -t why PATH (e.g. verify softmax/default/KERNEL/c3, or stitch softmax)' err"
echo "1..$n"
