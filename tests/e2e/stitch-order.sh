#!/bin/sh
# tests/e2e/stitch-order.sh: a stitch's key does not depend on the order
# in which its variants' profiles finished. With the simulated worker (a
# TEST DOUBLE): a model with two variants is built; the first variant's
# profile entry is then lost (a corrupt record), so that it is known after
# the second variant's, which comes from the cache. The profile runs again
# with the same result, and nothing else may run; before, the stitch's
# verify inputs were hashed in the order their edges were added, and the
# stitch ran again (found with the remote cache, issue 20, where an empty
# cache folder fills in whatever order). Prints TAP.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" stitch-order
mkdir models
printf '# model norm\nimport torch\n' >models/norm.py
cat >test.kopt <<SPEC
agents default { budget = 3  hot = 0.05  seed = 1 }
model norm {
  source = "models/norm.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
target all = [norm]
SPEC
"$KOPTMAKE" all >out 2>err
check "the first build runs both variants" "grep -q '^stitch norm default' sim.log && grep -q '^stitch norm autotune' sim.log"
key=$("$KOPTMAKE" -t query profile norm/default | sed -n 's/^  key *//p')
sed -i "/^$key /s/\"kind\":\"profile\"/\"kind\":\"profilE\"/" .kopt/actions
rm sim.log
"$KOPTMAKE" all >out 2>err
check "with the first variant's profile lost, only that profile runs ($(tr '\n' ',' <sim.log))" \
	"[ \"\$(cat sim.log)\" = 'profile norm default' ] && ! grep -q '] stitch norm' out"
rm sim.log
"$KOPTMAKE" all >out 2>err
check "and a null build after it runs nothing" "[ ! -s sim.log ] && grep -q 'nothing to do' out"
echo "1..$n"
