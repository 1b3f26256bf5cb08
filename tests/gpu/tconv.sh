#!/bin/bash
# tests/gpu/tconv.sh: koptmake's conv-transpose-as-conv rewrite on the GPU
# (issue 22, item 4). First the rewrite's numbers against torch's own
# transposed convolutions (tests/runtime/test_rewrites.py, on this torch);
# then a 3-D transposed convolution of stride 1 (models/small_tconv.py)
# built with space_variants = 1 and the real worker: the search adds
# autotune-conv-transpose-as-conv, which compiles with the rewrite (no
# data-gradient kernel in its profile), agrees with eager, and is raced;
# the race's times are printed. Prints TAP.
#   tconv.sh KOPTMAKE OUTDIR
set -u
K=$1; O=$2; here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
n=0; bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
top_srcdir=$top python3 "$top/tests/runtime/test_rewrites.py" > "$O.numbers.tap" 2>&1
nr=$?
sed 's/^/# /' "$O.numbers.tap" | grep -v '^# ok'
ok "the rewrite equals torch's transposed convolutions ($(grep -c '^ok' "$O.numbers.tap") ok)" "[ $nr -eq 0 ] && ! grep -q '^# no torch' '$O.numbers.tap'"
rm -rf "$O" && mkdir -p "$O/models" && cp "$here/models/small_tconv.py" "$O/models/"
cat > "$O/tconv.kopt" <<'SPEC'
device h200 { gpus = 1  timeout = 20m }
agents space { budget = 0  screen = 0  space_variants = 1 }
gates strict { seeds = 3  atol = 1e-4  rtol = 1e-4  gamma = 1.03  repeats = 10  precision = strict }
defaults { device = h200  agents = space  gates = strict }
model small_tconv {
  source = "models/small_tconv.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
target all = [small_tconv]
SPEC
(cd "$O" && "$K" all >build.log 2>&1)
rc=$?
R=$O/kopt-out/small_tconv
ok "the build succeeds (exit $rc)" "[ $rc -eq 0 ]"
ok "the search added the rewrite's variant, compiled and profiled" "[ -f '$R/profile-autotune-conv-transpose-as-conv.json' ]"
ok "its compiled code agrees with eager" "grep -q '| autotune-conv-transpose-as-conv | agrees |' '$R/report.md'"
ok "its profile has no data-gradient (dgrad) kernel; the first variant's has" \
	"! grep -qi 'dgrad' '$R/profile-autotune-conv-transpose-as-conv.md' && grep -qi 'dgrad' '$R/profile.md'"
grep -E '^\| (default|autotune|autotune-conv-transpose-as-conv) \| (pass|fail|not run) ' "$R/report.md" | sed 's/^/# /'
grep -E '^Optimized|^Baseline kept' "$R/report.md" | sed 's/^/# /'
[ $bad -eq 0 ] || tail -15 "$O/build.log" | sed 's/^/# /'
echo "1..$n"
exit $bad
