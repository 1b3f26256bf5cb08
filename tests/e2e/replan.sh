#!/bin/sh
# tests/e2e/replan.sh: a worker whose hello tells of another environment than
# the one remembered makes the build plan again, keyed anew. With the
# simulated worker (a TEST DOUBLE) and a launcher script (a TEST DOUBLE of an
# srun line) that sets the simulated torch version.
#  - Two devices whose workers both start in one plan and both changed:
#    both hellos are remembered, the one that came while the plan was
#    already stopping too, so a later build, which checks them, runs nothing.
#  - A worker environment that changes at every start (each worker dies
#    just after its hello, and each new one tells of another torch): the
#    build gives up after a bounded number of plans with an error line that
#    says why, and exit status 1.
# Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" replan
mkdir models
printf '# model m\n# sim: kernels 1\n# sim: reductions\nimport torch\n' > models/m.py
printf '# model k\n# sim: kernels 1\n# sim: reductions\nimport torch\n' > models/k.py
# the launcher: KOPT_SIM_TORCH from $tmp/torch, or a new one at each start
# where $tmp/apart exists
cat > launch <<'SH'
#!/bin/sh
d=$(dirname "$0")
if [ -f "$d/apart" ]; then
	KOPT_SIM_TORCH="2.$$.0+sim" # this launcher's pid: one a start
else
	KOPT_SIM_TORCH=$(cat "$d/torch")
fi
export KOPT_SIM_TORCH
exec "$@"
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
KOPT_TRUST_ENV=1 KOPT_SIM_START_MS=300 "$KOPTMAKE" -j2 > out 2> err
st=$?
set -e
check "both devices' new environment: the build plans again and passes (exit $st)" \
	"[ $st -eq 0 ] && grep -q \"the worker environment of device 'a' changed\" err && grep -q \"the worker environment of device 'b' changed\" err"
# checked now, not trusted: both remembered, so nothing runs
"$KOPTMAKE" > out2 2> err2
check "both hellos remembered: a checked build runs nothing" \
	"! grep -q 'changed' err2 && grep -q 'nothing to do' out2"

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
