#!/bin/sh
# tests/e2e/issue24-workers.sh: issue 24's workers, end to end with koptmake
# and the simulated worker (tests/sim-worker.c, a TEST DOUBLE that confines
# itself through the real worker's sandbox code, runtime/sandbox.c):
#   - a candidate that opens a network socket, and one that writes a file
#     outside the worker's scratch folder, fail gate 1 with the error, and
#     the reason reaches the verdict (-t why, the model's report); the file
#     is not written; with KOPT_SANDBOX=off it is;
#   - workers get no API key and no variable a spec's key_env names;
#   - a worker stuck in a step dies within a second of a SIGKILL of koptmake.
# Where this kernel lacks Landlock or seccomp, the cases that need it are
# skipped, saying so. Prints TAP.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" i24-workers
ENVLOG=$tmp/env.log
KOPT_SIM_ENV_LOG=$ENVLOG
export KOPT_SIM_ENV_LOG
unset KOPT_SANDBOX KOPT_SANDBOX_WRITE KOPT_WORKER_ENV 2>/dev/null || true
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

mkdir models outside
printf '# model\nimport torch\n# sim: kernels 1\n# sim: escape socket\n' > models/sock.py
printf '# model\nimport torch\n# sim: kernels 1\n# sim: escape write %s/outside/pwned\n' "$tmp" > models/write.py
printf '# model\nimport torch\n# sim: kernels 1\n' > models/plain.py
printf '# model\nimport torch\n# sim: hang capture\n' > models/hang.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin }
agents viallm { budget = 1  hot = 0.05  seed = 1  backend = builtin
                coder = llm("openai", model = "m", url = "http://127.0.0.1:9", key_env = "KOPT_MY_LLM_ACCESS") }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model sock { source = "models/sock.py" }
model write { source = "models/write.py" }
model plain { source = "models/plain.py"  agents = viallm }
model hang { source = "models/hang.py" }
target escapes = [sock, write]
target keys = [plain]
target stuck = [hang]
SPEC

"$KOPTMAKE" escapes > out 2> err || true
# how this kernel confines the worker: the sandbox test prints it too
KOPT_SCRATCH=$tmp/probe "$top_builddir/tests/sim-worker" < /dev/null > hello 2> /dev/null || true
net=false; fs=false
grep -q '"net": *true' hello && net=true
grep -q '"fs": *true' hello && fs=true
echo "# the worker's sandbox here: $(sed -n 's/.*"how": *"\([^"]*\)".*/\1/p' hello)"

ksock=$(sed -n 's/.*verify sock\/default\/\([^/]*\)\/c0$/\1/p' out | head -n 1)
kwrite=$(sed -n 's/.*verify write\/default\/\([^/]*\)\/c0$/\1/p' out | head -n 1)
"$KOPTMAKE" -t why "verify sock/default/$ksock/c0" > why.sock 2>&1 || true
"$KOPTMAKE" -t why "verify write/default/$kwrite/c0" > why.write 2>&1 || true
if $net; then
	check "a candidate that opens a socket fails gate 1, with the error as its reason (-t why)" \
		"grep -q 'fail at gate static' why.sock && grep -q 'Permission denied: socket(AF_INET' why.sock"
	check "the reason is in the model's report" "grep -q 'fail at static.*Permission denied: socket(AF_INET' kopt-out/sock/report.md"
else
	skip "a candidate that opens a socket fails gate 1" "no seccomp filter here"
	skip "the reason is in the model's report" "no seccomp filter here"
fi
if $fs; then
	check "a candidate that writes outside its scratch folder fails gate 1, with the error as its reason" \
		"grep -q 'fail at gate static' why.write && grep -q \"Permission denied: '$tmp/outside/pwned'\" why.write"
	check "and the file is not written" "[ ! -e outside/pwned ]"
else
	skip "a candidate that writes outside its scratch folder fails gate 1" "this kernel has no Landlock"
	skip "and the file is not written" "this kernel has no Landlock"
fi
KOPT_SANDBOX=off "$KOPTMAKE" -B escapes > out.off 2> err.off || true
check "with KOPT_SANDBOX=off the same candidate writes the file (the test can fail)" "[ -e outside/pwned ]"
check "and koptmake says, once, that its workers run without the sandbox" \
	"[ \$(grep -c 'weaker sandbox: off (KOPT_SANDBOX=off)' err.off) -eq 1 ] && ! grep -q 'weaker sandbox' err"

# keys: koptmake holds them, its workers do not
: > "$ENVLOG"
OPENAI_API_KEY=sk-i24-openai ANTHROPIC_API_KEY=sk-i24-anthropic KOPT_MY_LLM_ACCESS=sk-i24-keyenv \
	GITHUB_TOKEN=ghp-i24 KOPT_LLM_KEY=sk-i24-kopt KOPT_LLM_BACKOFF_MS=1 "$KOPTMAKE" keys > out 2> err || true
check "a worker started (its environment logged)" "grep -q '^pid ' '$ENVLOG' && grep -q '^PATH=' '$ENVLOG'"
check "workers get no API key, token or KOPT_* secret" "! grep -q 'sk-i24\|ghp-i24' '$ENVLOG'"
check "nor the variable a key_env names (KOPT_MY_LLM_ACCESS, a KOPT_* name)" "! grep -q '^KOPT_MY_LLM_ACCESS=' '$ENVLOG'"
check "they get what they need (PATH, KOPT_SLOT, KOPT_SCRATCH, CUDA_VISIBLE_DEVICES)" \
	"grep -q '^KOPT_SLOT=' '$ENVLOG' && grep -q '^KOPT_SCRATCH=' '$ENVLOG' && grep -q '^CUDA_VISIBLE_DEVICES=' '$ENVLOG'"
kplain=$(sed -n 's/.*propose plain\/default\/\([^/]*\)\/c0$/\1/p' out | head -n 1)
"$KOPTMAKE" -t why "propose plain/default/$kplain/c0" > why.plain 2>&1 || true
check "koptmake itself read the key: its LLM call went out (and found no server)" \
	"grep -q 'cannot connect' why.plain && ! grep -q 'is not set' why.plain"
# how many workers may share a GPU, for what each keeps on it (kopt/state.py):
# the pool's size over the device's GPUs
: > "$ENVLOG"
"$KOPTMAKE" -B -j 3 escapes > out.j3 2> err.j3 || true
check "with -j 3 on one GPU, each worker hears that three may share it" \
	"grep -q '^KOPT_GPU_SHARE=3\$' '$ENVLOG' && ! grep '^KOPT_GPU_SHARE=' '$ENVLOG' | grep -qv '=3\$'"
: > "$ENVLOG"
"$KOPTMAKE" -B -j 1 escapes > out.j1 2> err.j1 || true
check "with -j 1, one" "grep -q '^KOPT_GPU_SHARE=1\$' '$ENVLOG' && ! grep '^KOPT_GPU_SHARE=' '$ENVLOG' | grep -qv '=1\$'"
sed -i 's/^device sim { gpus = 1 /device sim { gpus = 2 /' test.kopt
: > "$ENVLOG"
"$KOPTMAKE" -B -j 3 escapes > out.g2 2> err.g2 || true
check "with -j 3 on two GPUs, two (rounded up)" \
	"grep -q '^KOPT_GPU_SHARE=2\$' '$ENVLOG' && ! grep '^KOPT_GPU_SHARE=' '$ENVLOG' | grep -qv '=2\$'"
sed -i 's/^device sim { gpus = 2 /device sim { gpus = 1 /' test.kopt

# orphans: SIGKILL koptmake while its worker hangs in capture
: > "$ENVLOG"
"$KOPTMAKE" stuck > out.stuck 2> err.stuck &
kpid=$!
wpid=
for i in $(seq 1 100); do
	wpid=$(sed -n 's/^pid //p' "$ENVLOG" | tail -n 1)
	[ -n "$wpid" ] && grep -q 'capture hang' err.stuck 2>/dev/null && break
	grep -q 'capture' out.stuck 2>/dev/null && [ -n "$wpid" ] && break
	sleep 0.1
done
sleep 0.3
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
check "the worker is stuck in capture (pid ${wpid:-none})" "[ -n '$wpid' ] && alive '$wpid'"
kill -9 "$kpid"
wait "$kpid" 2>/dev/null || true
gone=no
for i in 1 2 3 4 5 6 7 8 9 10; do
	if [ -z "$wpid" ] || ! alive "$wpid"; then gone=yes; break; fi
	sleep 0.1
done
check "a second after koptmake is killed, its worker is gone" "[ $gone = yes ]"
[ $gone = yes ] || kill -9 "$wpid" 2>/dev/null || true
# a killed koptmake leaves its workers' scratch folders
scratch=$(sed -n 's/^KOPT_SCRATCH=//p' "$ENVLOG" | tail -n 1)
case $scratch in */koptmake-*/*) rm -rf "${scratch%/*}" ;; esac
echo "1..$n"
