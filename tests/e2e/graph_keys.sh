#!/bin/sh
# tests/e2e/graph_keys.sh: a profile keeps the graph-cache keys its compile
# looked up (PROTOCOL.md, "graph_keys"; kopt/graphkeys.py), with the
# simulated worker (a TEST DOUBLE which, told by "# sim: graph-keys",
# says its key is made of three parts: the model's bytes, the variant's
# name and its environment's CXX). profile.json and
# profile-VARIANT.json carry them; two models' keys differ in the graph's
# part, two variants' of one model in the variant's alone, which is what
# kopt.graphkeys.differing names, as tests/gpu/deploy.py prints it for a
# deployment's compiles. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" graph_keys
mkdir models
for name in a b; do
	printf '# model %s\n# sim: steady\n# sim: kernels 1\n# sim: graph-keys\nimport torch\n' "$name" > "models/$name.py"
done
cat > test.kopt <<'SPEC'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 1  hot = 0.05  seed = 1  backend = builtin  auto_variants = false }
gates strict { seeds = 2  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  precision = strict }
defaults { device = sim  agents = default  gates = strict }
model a {
  source = "models/a.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model b { source = "models/b.py" }
target all = [a, b]
default all
SPEC

set +e
"$KOPTMAKE" all > out 2> err
status=$?
set -e
check "the build succeeds (exit $status)" "[ $status -eq 0 ]"
PYTHONPATH=$top_srcdir/runtime/python python3 - > got <<'PY'
import json
from kopt import graphkeys as GK

def keys(path):
    return json.load(open(path))["profile"].get("graph_keys") or []

a, at, b = keys("kopt-out/a/profile.json"), keys("kopt-out/a/profile-autotune.json"), keys("kopt-out/b/profile.json")
print("counts", len(a), len(at), len(b))
print("parts", " ".join(sorted(a[0]["parts"])) if a else "-")
print("same", GK.differing(a, a))
print("variant", GK.differing(a, at))
print("model", GK.differing(a, b))
PY
check "each profile.json keeps the key its compile looked up, with its parts" \
	"grep -qx 'counts 1 1 1' got && grep -qx 'parts gm inductor_config\\[cpp.cxx\\] inductor_config\\[variant\\]' got"
check "a key that is the build's differs in nothing" "grep -qx 'same \\[\\]' got"
check "another variant of the model: only the variant's part differs" \
	"grep -q \"^variant \\['key fsim.* against fsim.*: inductor_config\\[variant\\]'\\]\$\" got"
check "another model: the graph's part differs" "grep -q \"^model \\['key fsim.* against fsim.*: gm'\\]\$\" got"
check "profile.md does not spell the keys out" "! grep -q fsim kopt-out/a/profile.md"
echo "1..$n"
