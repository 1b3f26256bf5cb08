#!/bin/sh
# tests/e2e/nullbuild.sh: a null build starts no worker (issue 16). The
# simulated worker (a TEST DOUBLE) takes 3 s to say hello here, as torch
# and CUDA make the real one take 4 s, and names two files of this folder as
# its environment's witnesses. While they are unchanged, a null build keys
# on the remembered environment and starts nothing; when one changes, or
# with KOPT_CHECK_ENV=1, a worker is started to read its hello. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" nullbuild
mkdir models
printf '# model a\n# sim: kernels 1\nimport torch\n' > models/a.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 1  hot = 0.05  seed = 1  backend = builtin }
defaults { device = sim  agents = default }
model a { source = "models/a.py" }
target all = [a]
default all
SPEC
echo "torch 2.11" > version.py
echo "driver 580" > driver
KOPT_SIM_WITNESS=$tmp/version.py:$tmp/driver
KOPT_SIM_ENV_LOG=$tmp/starts
export KOPT_SIM_WITNESS KOPT_SIM_ENV_LOG
starts() { grep -c '^pid ' "$tmp/starts" 2>/dev/null || echo 0; }
rc=0
"$KOPTMAKE" > out 2> err || rc=$?
check "the first build succeeds" "[ $rc -eq 0 ] && [ -f kopt-out/all/report.json ]"
check "and remembers the witnesses' digests" "grep -q 'witness:sim' .kopt/env && grep -q 'version.py' .kopt/env"
before=$(starts)
KOPT_SIM_START_MS=3000
export KOPT_SIM_START_MS
t0=$(date +%s%N)
rc=0
"$KOPTMAKE" > out2 2> err2 || rc=$?
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
check "a null build with a worker that takes 3 s to start: ${ms} ms, under 500" "[ $rc -eq 0 ] && [ $ms -lt 500 ]"
check "it started no worker" "[ $(starts) -eq $before ]"
check "and says there is nothing to do" "grep -q 'nothing to do' out2 err2"
KOPT_CHECK_ENV=1 "$KOPTMAKE" > out3 2> err3 || true
check "KOPT_CHECK_ENV=1 starts a worker to check" "[ $(starts) -eq $((before + 1)) ]"
echo "torch 2.12" > version.py
KOPT_SIM_TORCH=2.12.0+sim "$KOPTMAKE" > out4 2> err4 || true
check "a changed witness file: a worker reads the environment" "[ $(starts) -ge $((before + 2)) ]"
check "and the changed environment keys the captures anew" "grep -q \"worker environment of device 'sim' changed\" err4 && grep -q '^capture a' sim.log"
n2=$(starts)
KOPT_SIM_TORCH=2.12.0+sim "$KOPTMAKE" > out5 2> err5 || true
check "then the next null build starts nothing again" "[ $(starts) -eq $n2 ] && grep -q 'nothing to do' out5 err5"
# a worker that names no witnesses (another runtime) is asked every time
unset KOPT_SIM_WITNESS
mkdir bare && cp -r models test.kopt bare/ && cd bare
KOPT_SIM_START_MS=0 "$KOPTMAKE" > out 2> err || true
n3=$(starts)
KOPT_SIM_START_MS=0 "$KOPTMAKE" > out2 2> err2 || true
KOPT_SIM_START_MS=0 "$KOPTMAKE" > out3 2> err3 || true
check "a worker that names no witnesses is asked at every build" "[ $(starts) -eq $((n3 + 2)) ] && grep -q 'nothing to do' out3 err3"
cd ..
echo "1..$n"
