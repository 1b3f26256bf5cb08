#!/bin/bash
# tests/gpu/space.sh: the implementation-space search on the GPU (issue 22,
# items 4 and 6). Builds tests/gpu/models/small_convnet.py (a convolution,
# GEMMs, reductions and parameters: every dimension applies) with
# space_variants = 6 and the real worker, then checks that each variant the
# search added was compiled and profiled with its options, and that each
# either passed its check against eager and was raced, or was excluded with
# its reason. Then tests/gpu/cudagraphs.py measures the deployment with
# CUDA graphs against reduce-overhead and max-autotune, apart. Prints TAP.
#   space.sh KOPTMAKE OUTDIR
# SPACE_ALL=1: space_variants = 14, every dimension (the model has two
# Triton kernels or more, so the fusion ones apply too): longer.
set -u
K=$(realpath "$1"); O=$2; here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$O" && mkdir -p "$O/models" && cp "$here/models/small_convnet.py" "$O/models/"
cat > "$O/space.kopt" <<'SPEC'
device h200 { gpus = 1  timeout = 20m }
agents space { budget = 0  screen = 0  space_variants = SPACE_N }
gates strict { seeds = 3  atol = 1e-4  rtol = 1e-4  gamma = 1.03  repeats = 10 }
defaults { device = h200  agents = space  gates = strict }
model small_convnet {
  source = "models/small_convnet.py"
  variant default { }
  variant autotune { mode = "max-autotune-no-cudagraphs" }
}
target all = [small_convnet]
default all
SPEC
want=$([ "${SPACE_ALL:-}" = 1 ] && echo 14 || echo 6)  # space_variants
sed -i "s/SPACE_N/$want/" "$O/space.kopt"
start=$(date +%s)
(cd "$O" && "$K" -f space.kopt all >build.log 2>&1)
rc=$?
echo "# build: exit $rc in $(( $(date +%s) - start )) s"
(cd "$O" && "$K" -f space.kopt -t why stitch small_convnet >why.txt 2>&1)
n=0; bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; fi; }
ok "the build succeeds (exit $rc)" "[ $rc -eq 0 ]"
# the variants the agents added, as the report's "compiled with" table says
# (the table's order: which come first depends on this run's profile, e.g.
# CUDA graphs where the call is the host's, the tf32x3 products where
# cuBLAS's float32 products take their share, the model's own layout where
# eager beat the compiled convolution)
expected=$(sed -n 's/^| \(autotune-[a-z0-9-]*\) | max-autotune-no-cudagraphs, .*(added by the agents) |$/\1/p' \
	"$O/kopt-out/small_convnet/report.md" 2>/dev/null | tr '\n' ' ')
echo "# added: $expected"
ok "the search added space_variants = $want variants" "[ $(echo $expected | wc -w) -eq $want ]"
# the model has a convolution, parameters and a reduction over a strided
# axis (its y.sum(0)): the dimensions these facts call for are among them
# where the table's order leaves room for them
for v in autotune-nd-tiling autotune-freezing autotune-channels-last; do
	ok "$v (a fact of the model's) is among them" "echo ' $expected ' | grep -q ' $v '"
done
for v in $expected; do
	ok "$v: compiled and profiled" "[ -f '$O/kopt-out/small_convnet/profile-$v.json' ]"
	ok "$v: its profile says what it is" "grep -q '^Compiled with max-autotune-no-cudagraphs, ' '$O/kopt-out/small_convnet/profile-$v.md'"
done
if grep -q 'optional failed' "$O/build.log"; then
	# a variant that did not compile is tried again by the next build, and
	# -t why says the stitch waits for it (the reasons are in report.md)
	ok "-t why names what each variant is # SKIP a variant did not compile" "true"
else
	ok "-t why names what each variant is" "grep -q 'variant autotune-freezing is max-autotune-no-cudagraphs, freezing = true' '$O/why.txt'"
fi
python3 - "$O" $expected > "$O/verdicts.txt" <<'PY'
import math, sys
o, want = sys.argv[1], sys.argv[2:]
status, rows = {}, {}
for line in open(f"{o}/kopt-out/small_convnet/report.md"):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 6 and cells[1] in ("pass", "fail", "not run"):
        rows[cells[0]] = cells   # | variant | stitch | baseline | optimized | attempts | reason |
    elif len(cells) == 3 and cells[1] in ("agrees", "accurate", "wrong", "ill-conditioned", "unchecked"):
        status[cells[0]] = cells[1]   # | variant | check | why |
bad = 0
for v in want:
    st, row = status.get(v), rows.get(v)
    if st is None or row is None:
        print(f"MISSING {v}: check {st}, report row {row}")
        bad = 1
        continue
    try:
        base = float(row[2])
    except ValueError:
        base = math.nan
    if st in ("agrees", "accurate") and row[1] != "not run" and not math.isnan(base):
        print(f"RACED {v}: check {st}, {base:.3f} us in the first variant's terms")
    elif st not in ("agrees", "accurate") and row[1] == "not run" and row[5]:
        print(f"EXCLUDED {v}: check {st}: {row[5]}")
    else:
        print(f"UNCLEAR {v}: check {st}, row {row}")
        bad = 1
sys.exit(bad)
PY
vrc=$?
cat "$O/verdicts.txt" | sed 's/^/# /'
ok "every expanded variant passed its check and was raced, or was excluded with its reason" "[ $vrc -eq 0 ]"
ok "the stitch report lists what each variant is" "grep -q '| autotune-freezing | max-autotune-no-cudagraphs, freezing = true (added by the agents) |' '$O/kopt-out/small_convnet/report.md'"
echo "# CUDA graphs, measured apart (tests/gpu/cudagraphs.py)"
python3 "$here/cudagraphs.py" "$O/models/small_convnet.py" "$O/kopt-out/small_convnet" "$O/cudagraphs.json" > "$O/cudagraphs.md"
crc=$?
sed 's/^/# /' "$O/cudagraphs.md"
ok "the CUDA-graph deployment runs under both contracts and gives the outputs it gives without graphs" "[ $crc -eq 0 ]"
echo "1..$n"
exit $bad
