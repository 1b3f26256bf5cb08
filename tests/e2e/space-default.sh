#!/bin/sh
# tests/e2e/space-default.sh: a spec that says nothing of space_variants
# gets the implementation-space variants its profile singles out and that
# can pay (space_variants = -1, rules/space.c rule_space_auto), with the
# simulated worker (a TEST DOUBLE). A depthwise convolution whose calls
# take a third of the device time ("# sim: dwconv") gets its rewrite's
# variant, and only it: the same variants as space_variants = 1, the
# benchmark's setting; a model whose facts single out nothing gets none;
# space_time = 0 and space_variants = 0 add none; space_time holds as many
# variants as it holds the model's capture times (captures of 0.3 s: 1s
# two that pay, 0.5s one); a null build runs
# nothing. Large float32 products in 60% of the device time ("# sim:
# gemm32 0.6") get the tf32x3 variant; in 20%, none; cuDNN's 1x1
# convolutions in half of it their products' variant. The rewrite's own kernels are screened and gated in its
# variant, as any kernel. Prints TAP.
set -eu

. "$top_srcdir/tests/e2e/sim-env.sh" space-default
mkdir models
mk() { printf '# model %s\n# sim: kernels 1\n%bimport torch\n' "$1" "$2" > "models/$1.py"; }
mk dw '# sim: dwconv\n# sim: params 3456\n'
mk bench '# sim: dwconv\n# sim: params 3456\n# bench\n'
mk plain '# sim: reductions\n'
mk gemm '# sim: gemm32 0.6\n'
mk fewgemm '# sim: gemm32 0.2\n'
mk pointwise '# sim: conv1x1 0.5\n# sim: params 4096\n'
mk timed '# sim: dwconv\n# sim: params 3456\n# timed\n'
mk off '# sim: dwconv\n# sim: params 3456\n# off\n'
mk single '# sim: dwconv\n# sim: params 3456\n# single\n'
# two facts that pay (a depthwise convolution, a call mostly the host's),
# each capture 0.3 s of GPU time: space_time 1s holds three such
# variants, 0.5s one
mk fits '# sim: dwconv\n# sim: params 3456\n# sim: host 0.6\n# sim: slow capture 300\n'
mk fitsone '# sim: dwconv\n# sim: params 3456\n# sim: host 0.6\n# sim: slow capture 300\n# one\n'
cat > test.kopt <<SPEC
device sim { gpus = 1  timeout = 30s }
agents default { budget = 2  hot = 0.05  seed = 1 }
agents bench { budget = 2  hot = 0.05  seed = 1  space_variants = 1 }
agents timed { budget = 2  hot = 0.05  seed = 1  space_time = 0s }
agents off { budget = 2  hot = 0.05  seed = 1  space_variants = 0 }
agents second { budget = 0  hot = 0.05  seed = 1  space_time = 1s }
agents halfsecond { budget = 0  hot = 0.05  seed = 1  space_time = 0.5s }
gates strict { seeds = 5  atol = 1e-4  rtol = 1e-4  fp64_fallback = true  gamma = 1.03 }
defaults { device = sim  agents = default  gates = strict }
model dw {
  source = "models/dw.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model bench {
  source = "models/bench.py"  agents = bench
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model plain {
  source = "models/plain.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
model gemm { source = "models/gemm.py" }
model fewgemm { source = "models/fewgemm.py" }
model pointwise { source = "models/pointwise.py" }
model timed { source = "models/timed.py"  agents = timed }
model off { source = "models/off.py"  agents = off }
model single { source = "models/single.py" }
model fits { source = "models/fits.py"  agents = second }
model fitsone { source = "models/fitsone.py"  agents = halfsecond }
target all = [dw, bench, plain, gemm, fewgemm, pointwise, timed, off, single, fits, fitsone]
default all
SPEC
"$KOPTMAKE" > out 2> err || { cat err >&2; exit 1; }
check "the spec's dump says the default, -1, and the GPU time it may take" \
	"\"$KOPTMAKE\" -t dump | grep -q '^	space_variants = -1\$' && \"$KOPTMAKE\" -t dump | grep -q '^	space_time = 600\$'"
check "a depthwise convolution in a third of the time: its rewrite's variant, captured and profiled" \
	"grep -q '^capture dw autotune-depthwise-as-pointwise\$' sim.log && grep -q '^profile dw autotune-depthwise-as-pointwise\$' sim.log"
check "... and no other of the agents' space variants" \
	"[ \$(grep -c '^capture dw autotune-' sim.log) -eq 1 ]"
check "... on the declared max-autotune variant, raced with the rest, added by the agents" \
	"grep -q '^| autotune-depthwise-as-pointwise | max-autotune-no-cudagraphs, kopt.depthwise_as_pointwise = true (added by the agents) |' kopt-out/dw/report.md"
check "the rewrite's own kernels are kernels like any other: screened, proposed and verified in its variant" \
	"grep -q '^screen dw autotune-depthwise-as-pointwise triton_' sim.log && grep -q '^verify dw autotune-depthwise-as-pointwise triton_' sim.log"
check "the benchmark's space_variants = 1: the same variants" \
	"[ \"\$(grep '^capture bench ' sim.log | cut -d' ' -f3 | sort)\" = \"\$(grep '^capture dw ' sim.log | cut -d' ' -f3 | sort)\" ]"
check "a model whose facts single out nothing: none" "! grep -q '^capture plain autotune-' sim.log"
check "a model of one variant, as the others below: its rewrite's variant on plain max-autotune-no-cudagraphs" \
	"grep -q '^capture single autotune-depthwise-as-pointwise\$' sim.log"
check "large float32 products in 60% of the device time: the tf32x3 variant alone, kopt.tf32x3_products on max-autotune" \
	"grep -q '^capture gemm autotune-tf32x3-products\$' sim.log && [ \$(grep -c '^capture gemm autotune-' sim.log) -eq 1 ] && grep -q '^| autotune-tf32x3-products | max-autotune-no-cudagraphs, kopt.tf32x3_products = true (added by the agents) |' kopt-out/gemm/report.md"
check "... in 20%: none" "! grep -q '^capture fewgemm autotune-' sim.log"
check "cuDNN's 1x1 convolutions in half the device time: their products' variant, koptmake's rewrite and Inductor's flag, channels-last" \
	"grep -q '^capture pointwise autotune-conv-1x1-as-mm\$' sim.log && grep -q '^| autotune-conv-1x1-as-mm | max-autotune-no-cudagraphs, kopt.conv1x1_as_product = true, conv_1x1_as_mm = true, force_layout_optimization = true, layout_optimization = true, freezing = true (added by the agents) |' kopt-out/pointwise/report.md"
check "space_time = 0s: none" "! grep -q '^capture timed autotune-' sim.log"
check "space_variants = 0: none" "! grep -q '^capture off autotune-' sim.log"
check "two facts that pay, captures of 0.3 s and space_time 1s: a variant for each" \
	"[ \$(grep -c '^capture fits autotune-' sim.log) -eq 2 ] && grep -q '^capture fits autotune-cudagraphs\$' sim.log && grep -q '^capture fits autotune-depthwise-as-pointwise\$' sim.log" sim.log
check "... and space_time 0.5s: the first of them alone" \
	"[ \$(grep -c '^capture fitsone autotune-' sim.log) -eq 1 ]" sim.log
: > sim.log
"$KOPTMAKE" > out2 2> err2 || { cat err2 >&2; exit 1; }
check "a null build runs nothing" "! grep -q . sim.log"
echo "1..$n"
