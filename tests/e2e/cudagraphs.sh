#!/bin/sh
# tests/e2e/cudagraphs.sh: a model whose call is mostly the host's gets a
# CUDA-graph variant (rules/space.c: autotune-cudagraphs, max-autotune's
# mode with graphs), raced like any variant and given no kernel
# candidates; report.json puts the chosen variant against it too. With the
# simulated worker (a TEST DOUBLE): "hosty" spends 70% of a call on the
# host and its graphs variant runs 2x faster; "busy" spends 5% (the
# default) and gets none; "gappy" spends half a call between its kernels,
# inside their span (a launch-bound call: its kernels run half of it, the
# first to the last spans 99%), which is the host's too. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" cudagraphs
mkdir models
printf '# model hosty\n# sim: host 0.7\n# sim: kernels 2\n# sim: steady\n# sim: fast autotune-cudagraphs 2\nimport torch\n' > models/hosty.py
printf '# model busy\n# sim: kernels 2\n# sim: steady\nimport torch\n' > models/busy.py
printf '# model gappy\n# sim: host 0.5\n# sim: span 0.99\n# sim: kernels 2\n# sim: steady\nimport torch\n' > models/gappy.py
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents one { budget = 1  hot = 0.05  seed = 1  backend = builtin  space_variants = 1  screen = 0 }
gates strict { seeds = 2  gamma = 1.03  repeats = 10 }
defaults { device = sim  agents = one  gates = strict }
model hosty {
  source = "models/hosty.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model busy {
  source = "models/busy.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model gappy {
  source = "models/gappy.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
target all = [hosty, busy, gappy]
default all
SPEC

rc=0
"$KOPTMAKE" > out 2> err || rc=$?
check "the build ends with the report (exit $rc)" "[ -f kopt-out/all/report.json ]"
check "a call mostly the host's: the graphs variant is captured and profiled" \
	"grep -q '^capture hosty autotune-cudagraphs\$' sim.log && grep -q '^profile hosty autotune-cudagraphs\$' sim.log"
check "... compiled as max-autotune's mode with triton.cudagraphs" \
	"grep -q '^| autotune-cudagraphs | max-autotune-no-cudagraphs, triton.cudagraphs = true (added by the agents) |' kopt-out/hosty/report.md"
check "... with no kernel candidates, and the report says why" \
	"! grep -q '^verify hosty autotune-cudagraphs ' sim.log && grep -q 'its kernels run as CUDA graphs' kopt-out/hosty/report.md"
check "... and the others get none either: their kernels at their bounds could not beat the graphs" \
	"! grep -q '^verify hosty ' sim.log && grep -q 'no candidates: with its hot kernels at their bounds it would take .* and autotune-cudagraphs takes' kopt-out/hosty/report.md"
field() { python3 -c "
import json
for m in json.load(open('kopt-out/all/report.json'))['models']:
    if m['model'] == '$1':
        v = m.get('$2')
        print('none' if v is None else v if isinstance(v, str) else '%.3f' % v)"; }
check "... wins the race ($(field hosty variant))" "[ '$(field hosty variant)' = autotune-cudagraphs ]"
check "... and is put against max-autotune with graphs too: itself, 1.000x ($(field hosty speedup_vs_max_autotune_cudagraphs))" \
	"[ '$(field hosty speedup_vs_max_autotune_cudagraphs)' = 1.000 ]"
check "over max-autotune without graphs it is faster ($(field hosty speedup_vs_max_autotune))" \
	"awk -v s=$(field hosty speedup_vs_max_autotune) 'BEGIN { exit !(s > 1.5) }'"
check "a call mostly the kernels': no graphs variant" "! grep -q '^capture busy autotune-cudagraphs' sim.log"
check "a call whose kernels run half of it, inside a span of 99%: the graphs variant" \
	"grep -q '^capture gappy autotune-cudagraphs\$' sim.log"
check "... its host share is the half the kernels leave ($(field gappy host_share))" \
	"[ '$(field gappy host_share)' = 0.500 ]"
check "... and the report's host-time table says so, kernels' time beside the call's" \
	"grep -q '^| gappy | default | [0-9.]* | [0-9.]* | 50% |' kopt-out/all/report.md"
check "... and no figure against one ($(field busy speedup_vs_max_autotune_cudagraphs))" "[ '$(field busy speedup_vs_max_autotune_cudagraphs)' = none ]"
echo "1..$n"
