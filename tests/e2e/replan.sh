#!/bin/sh
# tests/e2e/replan.sh: a worker whose hello tells of another environment than
# the one remembered makes the build plan again, keyed anew. With the
# simulated worker (a TEST DOUBLE) and a launcher script (a TEST DOUBLE of an
# srun line) that sets the simulated torch version.
#  - Two devices whose workers both changed and say hello at once (the
#    launcher holds them and lets them out together while koptmake is
#    stopped): both hellos are remembered, the one read while the first's
#    plan was stopping too, so a later build, which checks them, runs
#    nothing. The build plans again without an error.
#  - The default device (no device block): planned again once.
#  - Two workers of one device that tell of different environments: the
#    build stops with an error naming the field, and no step runs.
# Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" replan
mkdir models
printf '# model m\n# sim: kernels 1\n# sim: reductions\nimport torch\n' > models/m.py
printf '# model k\n# sim: kernels 1\n# sim: reductions\nimport torch\n' > models/k.py
# the launcher: KOPT_SIM_TORCH from $tmp/torch, or a new one at each start
# where $tmp/apart exists. Where $tmp/hold exists, it holds its worker's
# hello until two workers have one, then stops koptmake (its parent), lets
# both hellos out and lets koptmake go on: koptmake reads both in one poll,
# the case where the second came while the first's plan was stopping. Each
# wait gives up after 10 s, so a test that goes wrong fails, not hangs.
cat > launch <<'SH'
#!/bin/sh
d=$(dirname "$0")
if [ -f "$d/apart" ]; then
	KOPT_SIM_TORCH="2.$$.0+sim" # this launcher's pid: one a start
else
	KOPT_SIM_TORCH=$(cat "$d/torch")
fi
export KOPT_SIM_TORCH
[ -f "$d/hold" ] || exec "$@"
count() { ls "$d" | grep -c "^$1\\." || true; }
wait_for() { i=0; while [ "$(count "$1")" -lt 2 ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done; }
mkfifo "$d/out.$$"
exec 4<&0
"$@" <&4 > "$d/out.$$" &
exec 3< "$d/out.$$"
IFS= read -r hello <&3
: > "$d/said.$$"
if mkdir "$d/lead" 2>/dev/null; then
	wait_for said
	kill -STOP "$PPID"
	: > "$d/go"
	printf '%s\n' "$hello"
	: > "$d/out-said.$$"
	wait_for out-said
	sleep 0.1
	kill -CONT "$PPID"
else
	i=0; while [ ! -f "$d/go" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
	printf '%s\n' "$hello"
	: > "$d/out-said.$$"
fi
exec cat <&3
SH
chmod +x launch
echo 2.11.0+sim > torch
cat > test.kopt <<SPEC
device a { gpus = 1  timeout = 60s  launcher = "$tmp/launch" }
device b { gpus = 1  timeout = 60s  launcher = "$tmp/launch" }
agents default { budget = 1  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 2  gamma = 1.03  repeats = 5 }
defaults { device = a  agents = default  gates = strict }
model m { source = "models/m.py"  variant default { } }
model k { source = "models/k.py"  device = b  variant default { } }
target all = [m, k]
default all
SPEC
"$KOPTMAKE" > out 2> err
check "a first build with both devices" "grep -q '' .kopt/log"

# both models changed, both devices' torch changed; the remembered
# environments are trusted, so only the hellos can tell
printf '# changed\n' >> models/m.py
printf '# changed\n' >> models/k.py
echo 2.12.0+sim > torch
set +e
touch hold
KOPT_TRUST_ENV=1 "$KOPTMAKE" -j2 > out 2> err
st=$?
set -e
rm hold
check "both devices' new environment: the build plans again and passes (exit $st)" \
	"[ $st -eq 0 ] && grep -q \"the worker environment of device 'a' changed\" err && grep -q \"the worker environment of device 'b' changed\" err && ! grep -q error err"
check "... the two hellos came at once (the launcher's hold let them out together)" \
	"[ -f go ] && [ \$(ls | grep -c '^out-said\\.') -ge 2 ]"
# checked now, not trusted: both remembered, so nothing runs
"$KOPTMAKE" > out2 2> err2
check "both hellos remembered: a checked build runs nothing" \
	"! grep -q 'changed' err2 && grep -q 'nothing to do' out2"

# no device block (the default device, its launcher from KOPT_LAUNCHER):
# one plan again, and no more said
rm -f apart
sed '/^device /d; s/defaults { device = a  /defaults { /; s/  device = b//' test.kopt > plain.kopt
KOPT_LAUNCHER=$tmp/launch "$KOPTMAKE" -f plain.kopt > out4 2> err4 || true
printf '# plain\n' >> models/m.py
echo 2.13.0+sim > torch
set +e
KOPT_TRUST_ENV=1 KOPT_LAUNCHER=$tmp/launch "$KOPTMAKE" -f plain.kopt > out4 2> err4
st=$?
set -e
check "the default device's new environment: planned again once, and passes (exit $st)" \
	"[ $st -eq 0 ] && [ \$(grep -c \"the worker environment of device 'default' changed\" err4) -eq 1 ] && ! grep -q error err4"

# device a with two GPUs, a worker on each, and each worker start tells of
# another torch (a launcher that lands on machines set up apart): the build
# stops with an error that names the field, and runs no step (the two
# captures it started are recorded as cancelled; a step takes the worker
# 300 ms, so none can end before the second hello)
touch apart
sed 's/device a { gpus = 1/device a { gpus = 2/; s/device = b  variant/variant/' test.kopt > two.kopt
printf '# again\n' >> models/m.py
printf '# again\n' >> models/k.py
before=$(wc -l < .kopt/log)
set +e
KOPT_TRUST_ENV=1 KOPT_SIM_DELAY_MS=300 "$KOPTMAKE" -j2 -f two.kopt > out3 2> err3
st=$?
set -e
check "workers of one device that disagree: exit status 1 (exit $st)" "[ $st -eq 1 ]"
check "... with an error line naming the device and the field that differs" \
	"grep -q \"error: the workers of device 'a' tell of different environments (torch \\\"2.[0-9]*.0+sim\\\" and \\\"2.[0-9]*.0+sim\\\")\" err3"
tail -n "+$((before + 1))" .kopt/log | cut -f3,4 > new
check "... and no step ran: the log's new records are the two captures, cancelled" \
	"[ \$(wc -l < new) -eq 2 ] && [ \$(grep -c \"^cancelled: the worker cannot serve its device	capture\\\$\" new) -eq 2 ]"
echo "1..$n"
