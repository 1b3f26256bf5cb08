#!/bin/bash
# tests/gpu/rewrites.sh: koptmake's own rewrites on the GPU (issue 22,
# item 4; runtime/python/kopt/rewrites.py). First their numbers against
# torch's own convolutions (tests/runtime/test_rewrites.py, on this torch);
# then two models built with space_variants = 1 and the real worker, each
# getting its rewrite as the search's first dimension: a 3-D transposed
# convolution of stride 1 (models/small_tconv.py: its variant has no
# data-gradient kernel) and a grouped one of stride 2
# (models/small_tconv_strided.py: eight phases) and a depthwise 2-D convolution
# (models/small_depthwise.py: its variant has no vendor convolution, only
# Inductor's kernels), and a 3-D average pooling (models/small_avgpool3d.py:
# no ATen pooling kernel in its variant), and a forward 3-D convolution
# (models/small_conv3d.py: 2-D convolutions per depth tap, no "Nd" kernel),
# and a linear layer summed over its features (models/small_linear_sum.py:
# no GEMM left), a strided padded transposed convolution's spatial mean
# (models/small_tconv_mean.py: no convolution left) and a 3-D transposed
# convolution's mean over its channels (models/small_conv_chansum.py: its
# convolution has one output channel: no 64-channel kernel's time), and
# multi-head self-attention (models/small_attention.py, with its variant
# declared: the search tries it last; its variant calls kopt::attention,
# no softmax kernel left; the times are printed), and a chunked state
# of which the last is returned (models/small_last_state.py: its product
# for the last chunk alone, faster than max-autotune's).
# Each variant compiles, agrees with eager and is
# raced; the race's times are printed. Prints TAP.
#   rewrites.sh KOPTMAKE OUTDIR
set -u
K=$(realpath "$1"); O=$2; here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
n=0; bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
# MODELS="small_linear_sum ...": those alone (the checks of the others skip)
all="small_tconv small_depthwise small_avgpool3d small_tconv_strided small_conv3d small_linear_sum small_tconv_mean small_conv_chansum small_attention small_last_state"
models=${MODELS:-$all}
rm -rf "$O" && mkdir -p "$O/models" "$O/attn" && for m in $models; do cp "$here/models/$m.py" "$O/models/"; done
# the attention model in a block of its own, its rewrite's variant declared
[ -f "$O/models/small_attention.py" ] && mv "$O/models/small_attention.py" "$O/attn/"
has() { case " $models " in *" $1 "*) return 0;; *) return 1;; esac; }
top_srcdir=$top python3 "$top/tests/runtime/test_rewrites.py" > "$O/numbers.tap" 2>&1
nr=$?
grep -v '^ok' "$O/numbers.tap" | sed 's/^/# /'
ok "the rewrites equal torch's convolutions ($(grep -c '^ok' "$O/numbers.tap") ok)" "[ $nr -eq 0 ] && ! grep -q '^# no torch' '$O/numbers.tap'"
cat > "$O/rewrites.kopt" <<'SPEC'
device h200 { gpus = 1  timeout = 20m }
agents space { budget = 0  screen = 0  space_variants = 1 }
gates strict { seeds = 3  atol = 1e-4  rtol = 1e-4  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = h200  agents = space  gates = strict }
models m = glob("models/*.py") {
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
SPEC
if has small_attention; then
	cat >> "$O/rewrites.kopt" <<'SPEC'
models a = glob("attn/*.py") {
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
  variant autotune-flash-attention { mode = "max-autotune-no-cudagraphs"  options = { "kopt.flash_attention" = true } }
}
target all = [m, a]
SPEC
else
	echo 'target all = [m]' >> "$O/rewrites.kopt"
fi
(cd "$O" && "$K" all >build.log 2>&1)
rc=$?
ok "the build succeeds (exit $rc)" "[ $rc -eq 0 ]"
for pair in small_tconv:autotune-conv-transpose-as-conv small_depthwise:autotune-depthwise-as-pointwise \
	small_avgpool3d:autotune-pool-as-pointwise small_tconv_strided:autotune-conv-transpose-as-conv \
	small_conv3d:autotune-conv3d-as-conv2d small_linear_sum:autotune-linear-reduction-fold \
	small_tconv_mean:autotune-linear-reduction-fold small_conv_chansum:autotune-linear-reduction-fold \
	small_attention:autotune-flash-attention small_last_state:autotune-sliced-product; do
	m=${pair%%:*}; v=${pair#*:}; R=$O/kopt-out/m/$m
	[ "$m" = small_attention ] && R=$O/kopt-out/a/$m
	has "$m" || continue
	ok "$m: the variant $v compiled and profiled" "[ -f '$R/profile-$v.json' ]"
	ok "$m: its compiled code agrees with eager" "grep -q '| $v | agrees |' '$R/report.md'"
	grep -E "^\| (default|autotune|$v) \| (pass|fail|not run) " "$R/report.md" | sed 's/^/# /'
	grep -E '^Optimized|^Baseline kept' "$R/report.md" | sed 's/^/# /'
done
has small_tconv && ok "small_tconv: the rewrite's profile has no data-gradient (dgrad) kernel; the first variant's has" \
	"! grep -qi 'dgrad' '$O/kopt-out/m/small_tconv/profile-autotune-conv-transpose-as-conv.md' && grep -qi 'dgrad' '$O/kopt-out/m/small_tconv/profile.md'"
has small_depthwise && ok "small_depthwise: the rewrite's profile has no vendor kernel, only Inductor's" \
	"! grep -q '| vendor |' '$O/kopt-out/m/small_depthwise/profile-autotune-depthwise-as-pointwise.md' && grep -q '| triton |' '$O/kopt-out/m/small_depthwise/profile-autotune-depthwise-as-pointwise.md'"
has small_avgpool3d && ok "small_avgpool3d: the rewrite's profile has no ATen pooling kernel, only Inductor's" \
	"! grep -q '| vendor |' '$O/kopt-out/m/small_avgpool3d/profile-autotune-pool-as-pointwise.md' && grep -q '| triton |' '$O/kopt-out/m/small_avgpool3d/profile-autotune-pool-as-pointwise.md'"
has small_conv3d && ok "small_conv3d: the rewrite's profile has no cuDNN N-d (3-D) kernel" \
	"! grep -q 'Nd' '$O/kopt-out/m/small_conv3d/profile-autotune-conv3d-as-conv2d.md'"
has small_linear_sum && ok "small_linear_sum: the fold's profile has no GEMM kernel; the first variant's has" \
	"! grep '| vendor |' '$O/kopt-out/m/small_linear_sum/profile-autotune-linear-reduction-fold.md' | grep -qi gemm && grep '| vendor |' '$O/kopt-out/m/small_linear_sum/profile.md' | grep -qi gemm"
has small_tconv_mean && ok "small_tconv_mean: the fold's profile has no convolution kernel; the first variant's has" \
	"! grep '| vendor |' '$O/kopt-out/m/small_tconv_mean/profile-autotune-linear-reduction-fold.md' | grep -qiE 'conv|dgrad|gemm' && grep '| vendor |' '$O/kopt-out/m/small_tconv_mean/profile.md' | grep -qiE 'conv|dgrad|gemm'"
has small_conv_chansum && ok "small_conv_chansum: the fold's variant runs faster than max-autotune's (its one-channel convolution)" \
	"python3 -c \"import json,sys; r=json.load(open('$O/kopt-out/all/report.json')); m=[x for x in r['models'] if x['model'].endswith('small_conv_chansum')][0]; b={v['variant']: v['baseline_ns'] for v in m['bounds']}; sys.exit(0 if b['autotune-linear-reduction-fold'] < b['autotune'] else 1)\""
has small_attention && ok "small_attention: the rewrite's profile has kopt::attention's kernel and no softmax kernel; the first variant's has one" \
	"grep -q 'kopt_flash_attention_fwd' '$O/kopt-out/a/small_attention/profile-autotune-flash-attention.md' && ! grep -q 'softmax' '$O/kopt-out/a/small_attention/profile-autotune-flash-attention.md' && grep -q 'softmax' '$O/kopt-out/a/small_attention/profile.md'"
has small_attention && python3 -c "import json; r=json.load(open('$O/kopt-out/all/report.json')); m=[x for x in r['models'] if x['model'].endswith('small_attention')][0]; print('# small_attention, us per call:', {v['variant']: round(v['baseline_ns'] / 1e3, 1) for v in m['bounds']})"
has small_last_state && ok "small_last_state: the sliced product's variant runs faster than max-autotune's" \
	"python3 -c \"import json,sys; r=json.load(open('$O/kopt-out/all/report.json')); m=[x for x in r['models'] if x['model'].endswith('small_last_state')][0]; b={v['variant']: v['baseline_ns'] for v in m['bounds']}; print('# us', {k: round(v / 1e3, 1) for k, v in b.items()}); sys.exit(0 if b['autotune-sliced-product'] < b['autotune'] else 1)\""
for m in small_tconv_mean small_conv_chansum; do
	has $m && grep '| vendor |' "$O/kopt-out/m/$m/profile.md" "$O/kopt-out/m/$m/profile-autotune-linear-reduction-fold.md" | cut -c1-160 | sed 's/^/# /'
done
has small_conv3d && grep '| vendor |' "$O/kopt-out/m/small_conv3d/profile.md" "$O/kopt-out/m/small_conv3d/profile-autotune-conv3d-as-conv2d.md" | cut -c1-160 | sed 's/^/# /'
[ $bad -eq 0 ] || tail -15 "$O/build.log" | sed 's/^/# /'
echo "1..$n"
exit $bad
