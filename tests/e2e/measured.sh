#!/bin/sh
# tests/e2e/measured.sh: the reports say when and on what they were
# measured (rules/measured.c), with the simulated worker (a test double
# that stamps its profile, stitch and race results with a fixed time, or
# "# sim: measured T"): the target report gives the newest stamp's UTC date
# and the GPU, driver, CUDA, torch, triton and koptmake version, in
# report.md and report.json, each model too; a profile and a model report
# give theirs. The date is the measurements': a null build, a build done
# in two steps, or a worker that would stamp another time now, leave the
# report's bytes as they were; a new torch whose code is the same keeps the
# torch the numbers were measured with, and a model measured again under
# another says so ("1 of the models was measured in another environment").
# A result with no stamp gets koptmake's clock (today). Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
KOPT_WORKER=$top_builddir/tests/sim-worker
export KOPT_WORKER
# its model files are "# sim:" lines, read by a TEST DOUBLE of the worker's Python
KOPT_PYTHON=$top_srcdir/tests/sim-python
export KOPT_PYTHON
unset KOPT_LAUNCHER KOPT_TRUST_ENV KOPT_SIM_TORCH KOPT_SIM_MEASURED KOPT_SIM_DELAY_MS 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-measured-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$3" 2>/dev/null || true; fi; }

spec() { # DIR
	mkdir -p "$1/models"
	printf '# model a\nimport torch\n' > "$1/models/a.py"
	# 2025-12-06 00:00 UTC, newer than the simulated worker's default (2000-01-01)
	printf '# model b\n# sim: measured 1764979200\nimport torch\n' > "$1/models/b.py"
	cat > "$1/s.kopt" <<'EOF'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 2  hot = 0.05  seed = 1 }
gates strict { seeds = 5  gamma = 1.03 }
defaults { device = sim  agents = default  gates = strict }
models m = glob("models/*.py") { }
target all = [m]
EOF
}
version=$("$KOPTMAKE" --version | sed 's/^koptmake //')
d=$tmp/one
spec "$d"
(cd "$d" && "$KOPTMAKE" > out 2>&1) || true
r=$d/kopt-out/all/report.md
line=$(sed -n 3p "$r")
check "report.md says the newest measurement's date and what measured it ($line)" \
	"[ \"$line\" = 'Measured on 2025-12-06 (UTC) on NVIDIA H200 (simulated) (compute capability 0.0): driver sim, CUDA sim, torch 2.11.0+sim, triton 3.6.0+sim, koptmake $version.' ]" "$d/out"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["measured"]
assert m == {"date": "2025-12-06", "gpu": "NVIDIA H200 (simulated)", "cc": "0.0", "driver": "sim", "cuda": "sim",
             "torch": "2.11.0+sim", "triton": "3.6.0+sim", "koptmake": sys.argv[2]}, m
dates = {x["model"]: x["measured"]["date"] for x in d["models"]}
assert dates == {"m/a": "2000-01-01", "m/b": "2025-12-06"}, dates
print("ok")' "$d/kopt-out/all/report.json" "$version" > "$tmp/py" 2>&1 || true
check "report.json: the same, and each model's own date" "grep -qx ok $tmp/py" "$tmp/py"
check "a model's report and profile say theirs" \
	"grep -qx 'Measured on 2000-01-01 (UTC) on NVIDIA H200 (simulated) .*' $d/kopt-out/m/a/report.md && grep -qx 'Measured on 2025-12-06 (UTC) on NVIDIA H200 (simulated) .*' $d/kopt-out/m/b/profile.md"
check "profile.json keeps the stamp and the environment" \
	"grep -q '\"at\": 1764979200' $d/kopt-out/m/b/profile.json && grep -q '\"torch\": \"2.11.0+sim\"' $d/kopt-out/m/b/profile.json"
cp "$r" "$tmp/report.md"
cp "$d/kopt-out/all/report.json" "$tmp/report.json"

# a worker that would stamp another time now, on a null build
(cd "$d" && KOPT_SIM_MEASURED=1800000000 "$KOPTMAKE" > out 2>&1) || true
check "a null build leaves report.md and report.json as they were" \
	"grep -q 'nothing to do' $d/out && cmp -s $r $tmp/report.md && cmp -s $d/kopt-out/all/report.json $tmp/report.json" "$d/out"

# the same spec built in two steps, one model first: the same bytes
d2=$tmp/two
spec "$d2"
(cd "$d2" && "$KOPTMAKE" m/a > out 2>&1 && sleep 1 && "$KOPTMAKE" >> out 2>&1) || true
check "a build in two steps gives the one-step build's report.md and report.json" \
	"cmp -s $d2/kopt-out/all/report.md $tmp/report.md && cmp -s $d2/kopt-out/all/report.json $tmp/report.json" "$d2/out"

# a new torch that compiles to the same code: nothing is measured again
(cd "$d" && KOPT_SIM_TORCH=2.12.0+sim "$KOPTMAKE" > out 2>&1) || true
check "a new torch with the same code: the report keeps the torch the numbers were measured with" \
	"grep -q 'environment .* changed' $d/out && grep -q 'torch 2.11.0+sim' $r && ! grep -q 'torch 2.12' $r" "$d/out"

# one model measured again under that torch: the report's stamp stays the
# newest measurement's (b's), and it says how many models were measured
# in another environment
printf '# changed\n' >> "$d/models/a.py"
(cd "$d" && KOPT_SIM_TORCH=2.12.0+sim "$KOPTMAKE" > out 2>&1) || true
check "one model measured again under another torch: the report says that one model was measured in another environment" \
	"grep -q 'torch 2.11.0+sim' $r && grep -qx \"1 of the models was measured in another environment: report.json has each model's.\" $r && [ \$(grep -c 'another environment' $r) -eq 1 ]" "$d/out"
check "... and before it, none was: the line is not in the report of one environment" "! grep -q 'another environment' $tmp/report.md"

# a worker that does not stamp (a stamp of 0 reads as none): koptmake's clock
d3=$tmp/nostamp
spec "$d3"
sed -i '/# sim: measured/d' "$d3/models/b.py"
before=$(date -u +%Y-%m-%d)
(cd "$d3" && KOPT_SIM_MEASURED=0 "$KOPTMAKE" > out 2>&1) || true
after=$(date -u +%Y-%m-%d)
got=$(sed -n 's/^Measured on \([0-9-]*\) (UTC).*/\1/p' "$d3/kopt-out/all/report.md")
check "results without a stamp are dated by koptmake's clock when they arrive ($got)" \
	"[ \"$got\" = \"$before\" ] || [ \"$got\" = \"$after\" ]" "$d3/out"
echo "1..$n"
