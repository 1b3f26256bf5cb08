#!/bin/sh
# tests/e2e/worker-replies.sh: koptmake against workers that answer
# wrongly at the scheduler's level, each a few lines of shell (TEST
# DOUBLES of kopt-worker; tests/unit/wpool_protocol_test breaks the
# protocol itself): a worker that replies ok without a result object, one
# whose capture names a kernel without its kind, and a worker program that
# does not exist. The step fails with the reason,
# the build exits 1, and a null build afterwards with a good worker (the
# simulated one) builds the model. Prints TAP.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" worker-replies
sim=$KOPT_WORKER
mkdir models
printf '# model m\n# sim: kernels 1\nimport torch\n' > models/m.py
cat > test.kopt <<'SPEC'
device sim { gpus = 1  timeout = 10s }
agents default { budget = 1  hot = 0.05  seed = 1  screen = 0 }
defaults { device = sim  agents = default }
model m { source = "models/m.py" }
target all = [m]
SPEC
cat > noresult.sh <<'SH'
#!/bin/sh
echo '{"hello":"kopt-test","protocol":1,"env":{"gpu":"sim"}}'
while read -r l; do
	id=$(printf '%s' "$l" | sed 's/.*"id": *\([0-9]*\).*/\1/')
	echo '{"id":'"$id"',"ok":true}'
done
SH
chmod +x noresult.sh
rc=0
KOPT_WORKER=$tmp/noresult.sh "$KOPTMAKE" > out 2> err || rc=$?
check "a worker that replies ok without a result: exit 1, the capture failed with why ($rc)" \
	"[ $rc -eq 1 ] && grep -q '^koptmake: error: capture m/default failed: worker replied ok without a result object\$' err"
check "... and nothing of it is kept: no report" "[ ! -f kopt-out/all/report.md ]"
rc=0
KOPT_WORKER=$tmp/no/such/worker "$KOPTMAKE" > out 2> err || rc=$?
check "a worker program that does not exist: exit 1, the capture failed, the program named ($rc)" \
	"[ $rc -eq 1 ] && grep -q 'capture m/default failed: worker exited with status 127 before its hello' err &&
	 grep -q \"cannot run '$tmp/no/such/worker': No such file or directory\" err"
# a capture whose second kernel has a name and no kind
cat > nokind.sh <<'SH'
#!/bin/sh
echo '{"hello":"kopt-test","protocol":1,"env":{"gpu":"sim"}}'
while read -r l; do
	id=$(printf '%s' "$l" | sed 's/.*"id": *\([0-9]*\).*/\1/')
	echo '{"id":'"$id"',"ok":true,"result":{"output_code":"# code","kernels":[{"name":"triton_poi_0","kind":"triton"},{"name":"triton_poi_1"}]}}'
done
SH
chmod +x nokind.sh
rc=0
KOPT_WORKER=$tmp/nokind.sh "$KOPTMAKE" > out 2> err || rc=$?
check "a capture kernel with a name and no kind: exit 1, the capture failed, the kernel named by its place ($rc)" \
	"[ $rc -eq 1 ] && grep -q 'capture m/default failed: capture result: kernel 1 has no name or kind' err"
rc=0
KOPT_WORKER=$sim "$KOPTMAKE" > out 2> err || rc=$?
check "the simulated worker then builds it: the failed steps were not kept ($rc)" \
	"[ $rc -eq 0 ] && [ -f kopt-out/all/report.md ] && grep -q '^\\[[0-9]*/~*[0-9]*\\] capture m/default' out"
echo "1..$n"
