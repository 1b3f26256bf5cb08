#!/bin/sh
# tests/e2e/screen-lost.sh: a launch config that kills the CUDA context (an
# illegal memory access) costs its worker, not its step, with the
# simulated worker (a TEST DOUBLE: KOPT_SIM_LOST="OP KEY=N..." makes a
# config do that, and answers as kopt-worker does: what it has, "lost",
# fatal).
#   - a screen that meets one goes on in the worker started in its place,
#     from the rows it had (none measured again), without that config,
#     which it records as failed with the reason; the step succeeds, its
#     best is what is left, and a null build runs nothing;
#   - a screen that loses three workers ends with what it has;
#   - a verify whose candidate does it fails that candidate at
#     correctness with the reason, and the build goes on.
# Prints TAP.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" screen-lost
KOPT_SIM_WHO=$tmp/who.log
export KOPT_SIM_WHO
mkdir models
spec() {
	KOPT_SIM_LOST=$1
	export KOPT_SIM_LOST
	printf '# model wide\n# sim: kernels 2\n# sim: reductions\nimport torch\n' >models/wide.py
	cat >test.kopt <<'SPEC'
device sim { gpus = 1  timeout = 30s }
agents default { budget = 4  hot = 0.05  seed = 1  backend = builtin }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model wide { source = "models/wide.py" }
target all = [wide]
default all
SPEC
}
build() { rc=0; rm -rf .kopt kopt-out; : >sim.log; : >who.log; "$KOPTMAKE" >out 2>err || rc=$?; }
K=triton_red_fused__softmax_0
why() { "$KOPTMAKE" -t why "screen wide/default/$K" >why.txt 2>&1; }
rows() { sed -n 's/^  | [0-9]* | \([^|]*\) | .*/\1/p' why.txt; }

# without a loss: the screen's rows and its best
spec ""
build
why
rows >rows.clean
sed -n 's/^  best 1 *\(.*\)  [0-9.]*x alone$/\1/p' why.txt >best.clean
check "without a loss: the best config of $K is XBLOCK=1 R0_BLOCK=4096 num_warps=32" \
	"[ $rc -eq 0 ] && grep -qx 'XBLOCK=1 R0_BLOCK=4096 num_warps=32 num_stages=1' best.clean"

# that best config kills the context
spec "screen XBLOCK=1 R0_BLOCK=4096 num_warps=32 num_stages=1"
build
why
check "the build succeeds" "[ $rc -eq 0 ] && ! grep -q 'failed' err && [ -f kopt-out/all/report.md ]"
check "$K is screened twice: the second time in the worker started in place of the first" \
	"[ \$(grep -c '^screen wide default $K\$' sim.log) -eq 2 ] && [ \$(grep '^screen ' who.log | grep -c ' default ') -ge 2 ] && \
	 [ \$(grep '^screen ' who.log | awk '{print \$4}' | sort -u | wc -l) -ge 2 ]"
check "the config is a row that failed with the reason" \
	"grep -q '| XBLOCK=1 R0_BLOCK=4096 num_warps=32 num_stages=1 | it lost the CUDA context (RuntimeError: CUDA error: an illegal memory access' why.txt"
rows >rows.lost
check "the screen tried the same configs, each once, in the same budget (none measured again)" \
	"[ \$(wc -l <rows.lost) -eq \$(wc -l <rows.clean) ] && [ \$(sort rows.lost | uniq -d | wc -l) -eq 0 ] && \
	 [ \"\$(sort rows.lost)\" = \"\$(sort rows.clean)\" ]"
check "its best is what is left, without that config" \
	"grep -q '^  best 1 *XBLOCK=1 R0_BLOCK=4096 num_warps=16 num_stages=2 ' why.txt && ! grep '^  best' why.txt | grep -q 'XBLOCK=1 R0_BLOCK=4096 num_warps=32 num_stages=1'"
check "the report says so" "grep -q '1 config lost the CUDA context and failed (the worker was replaced' kopt-out/wide/report.md"
rc=0
"$KOPTMAKE" >out 2>err || rc=$?
check "a null build runs nothing" "[ $rc -eq 0 ] && grep -q 'nothing to do' out"

# every num_warps=32 config kills it: three workers, then what it has
spec "screen num_warps=32"
build
why
check "a screen that loses three workers ends with what it has, and the build succeeds" \
	"[ $rc -eq 0 ] && [ \$(grep -c '^screen wide default $K\$' sim.log) -eq 3 ] && [ \$(grep -c 'it lost the CUDA context' why.txt) -eq 3 ] && \
	 grep -q '3 configs lost the CUDA context' kopt-out/wide/report.md"

# a verify whose candidate kills the context
spec "verify XBLOCK=1 R0_BLOCK=4096 num_warps=32 num_stages=1"
build
c=$(sed -n "s/^| \\([0-9]*\\) | tuner: screen .*XBLOCK=1 R0_BLOCK=4096 num_warps=32 num_stages=1.*/\\1/p" kopt-out/wide/report.md | head -n 1)
"$KOPTMAKE" -t why "verify wide/default/$K/c${c:-0}" >vwhy.txt 2>&1 || true
check "a verify whose candidate kills the context fails it at correctness, with the reason" \
	"[ $rc -eq 0 ] && [ -n '$c' ] && grep -q 'fail at gate correctness' vwhy.txt && grep -q 'the candidate did not run: it lost the CUDA context' vwhy.txt"
check "... and the next verify runs in another worker" \
	"[ \$(grep '^verify ' who.log | awk '{print \$4}' | sort -u | wc -l) -ge 2 ]"
echo "1..$n"
