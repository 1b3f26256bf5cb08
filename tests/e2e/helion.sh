#!/bin/sh
# tests/e2e/helion.sh: a Helion kernel file end to end (issue 21), with the
# simulated worker (a TEST DOUBLE that answers a "helion" model as
# runtime/python/kopt/helion.py does: _helion_ kernels whose config is a
# helion.Config, and the profile's Helion baselines). Checks that the
# candidates are helion.Configs, starting from Helion's quick autotune's
# config, that the winner comes back as the line to paste and as
# helion.json, that lessons are filed by config, and that helion_full
# asks for the full-effort baseline and reruns the profile, and that a
# Helion file gets none of the variants the agents add to a torch model.
# Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" helion
printf '# sim: kernels 1\n# sim: wins num_warps=8\nimport helion\n' > soft.py
spec() {
	cat > h.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 6  hot = 0.05  seed = 1  backend = builtin  helion_full = $1  space_variants = 2 }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = sim  agents = default  gates = strict }
helion soft { source = "soft.py" }
target all = [soft]
SPEC
}
spec false
"$KOPTMAKE" -f h.kopt > out 2> err || cat err >&2
check "the build optimizes the Helion kernel file" "grep -q '1 optimized' out"
check "profile.md: the own config's and the quick autotune's times (147.891 and 123.243 us) and wall time, no full effort" \
	"grep -q '^| hk0 | 147\\.891 | 123\\.243 | 40\\.0 | not run (agents: helion_full) | - |$' kopt-out/soft/profile.md"
check "a Helion file gets no variant of the agents' own: no implementation-space search (space_variants = 2), no aten-auto or cudnn-auto" \
	"[ \$(grep -c '^capture ' sim.log) -eq 1 ] && grep -q '^capture soft default' sim.log && ! grep -q 'auto' sim.log"
check "every candidate verified is a helion.Config (block_sizes), none a Triton launch config" \
	"[ \$(grep -c '^verify ' sim.log) -eq 6 ] && ! grep '^verify ' sim.log | grep -qv '\"block_sizes\":\\['"
check "candidate 0 is Helion's quick autotune's config" \
	"grep -q '^| 0 | tuner: Helion.s quick autotune.s config (block_sizes=128,32 ' kopt-out/soft/report.md"
check "the moves change the config's keys (a block size, the warps)" \
	"grep -q 'coder: b0-down from the kernel.s own config (block_sizes=32,32 ' kopt-out/soft/report.md && grep -q 'num_warps=8' kopt-out/soft/report.md"
check "report.md: the winner as the decorator line to paste (Python's None, True, False and strings)" \
	"grep -q '^    @helion.kernel(config=helion.Config(block_sizes=\[[0-9]*, 32\], indexing=\"pointer\", load_eviction_policies=\[\"\", \"last\"\], loop_orders=\[\[0, 1\]\], num_stages=2, num_warps=8, pid_type=\"flat\", range_flattens=\[None, True\], static_ranges=\[False\]))$' kopt-out/soft/report.md"
check "helion.json: the winning config under the kernel's global name" \
	"tr -d ' \n' < kopt-out/soft/helion.json | grep -q '\"kernels\":{\"hk0\":{\"config\":{\"block_sizes\":\[[0-9]*,32\],.*\"num_warps\":8,'"
check "the long-term memory files a lesson by its helion.Config" \
	"grep -q '\"f\":\"helion/[^\"]*\",\"s\":\"warps-up\",\"v\":\"pass\",\"x\":1.[0-9]*,\"c\":\"block_sizes=64,32 num_warps=8 num_stages=2 indexing=pointer pid_type=flat' .kopt/memory.jsonl"
check "report.md: own (147.891 us), quick autotune (its config passed on from the profile, 1.2x faster) and koptmake's configs side by side, the quick search's wall time, no full row" \
	"grep -q '^| the kernels. own | 147\\.891 | 1\\.000x | - |$' kopt-out/soft/report.md && grep -q '^| Helion.s quick autotune | 123\\.243 | 1\\.200x | 40\\.0 |$' kopt-out/soft/report.md && grep -q '^| koptmake.s | [0-9.]* | 1.[0-9]*x | - |$' kopt-out/soft/report.md && ! grep -q 'full autotune |' kopt-out/soft/report.md"

: > sim.log
"$KOPTMAKE" -f h.kopt > out 2> err || cat err >&2
check "a null build reruns nothing" "[ ! -s sim.log ]"
spec true
"$KOPTMAKE" -f h.kopt > out 2> err || cat err >&2
check "helion_full = true reruns the profile, and the stitch that races its config" "grep -q '^profile soft default' sim.log && grep -q '^stitch soft default' sim.log"
check "... and profile.md has the full effort's time and wall time" \
	"grep -q '^| hk0 | [0-9.]* | [0-9.]* | 40.0 | [0-9.]* | 900.0 |$' kopt-out/soft/profile.md"
check "... and report.md its row beside the others, with its wall time" \
	"grep -q '^| Helion.s full autotune | [0-9.]* | 1.300x | 900.0 |$' kopt-out/soft/report.md"
echo "1..$n"
