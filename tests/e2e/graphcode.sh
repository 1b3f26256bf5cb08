#!/bin/sh
# tests/e2e/graphcode.sh: a variant with koptmake's own options (kopt.NAME)
# is captured again when the kopt package's graph code changes (the env's
# graph_code: the rewrites and the kernels they call), and a variant without
# them is not. Against the simulated worker (a TEST DOUBLE), whose hello
# reports KOPT_SIM_GRAPH_CODE. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" graphcode
mkdir models
printf '# model a\n# sim: kernels 1\nimport torch\n' > models/a.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 1  hot = 0.05  seed = 1  backend = builtin }
defaults { device = sim  agents = default }
model a {
  source = "models/a.py"
  variant plain { mode = "max-autotune-no-cudagraphs" }
  variant own { mode = "max-autotune-no-cudagraphs"  options = { "kopt.flash_attention" = true } }
}
target all = [a]
default all
SPEC
rc=0
KOPT_SIM_GRAPH_CODE=v1 "$KOPTMAKE" > out 2> err || rc=$?
check "the first build captures both variants" "[ $rc -eq 0 ] && grep -q '^capture a plain' sim.log && grep -q '^capture a own' sim.log"
: > sim.log
rc=0
KOPT_SIM_GRAPH_CODE=v1 "$KOPTMAKE" > out2 2> err2 || rc=$?
check "the same graph code: nothing captured again" "[ $rc -eq 0 ] && ! grep -q '^capture' sim.log"
: > sim.log
rc=0
KOPT_SIM_GRAPH_CODE=v2 "$KOPTMAKE" > out3 2> err3 || rc=$?
check "another graph code: the variant with kopt options is captured again" "[ $rc -eq 0 ] && grep -q '^capture a own' sim.log"
check "and the variant without them is not" "! grep -q '^capture a plain' sim.log"
echo "1..$n"
