#!/bin/bash
# tests/gpu/screen_lost.sh: a launch config that makes an illegal memory
# access costs its worker, not its screen, on the GPU machine. The
# examples' cross-entropy model is built with a TEST DOUBLE planted in the
# real kopt-worker (tests/gpu/planted/sitecustomize.py, through PYTHONPATH):
# the second config a screen loads is swapped for a kernel that stores to a
# wild address, a real illegal access that kills the CUDA context. The
# build succeeds; the screen goes on in the worker started in its place,
# without that config, which it records as failed with the reason; the
# worker's log says the context was lost; nothing else crashes.
#   screen_lost.sh KOPTMAKE OUTDIR      (run from the build folder; prints TAP)
set -u
K=$(realpath "$1")
O=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
rm -rf "$O"
mkdir -p "$O/spec" "$O/plant"
cp "$top/examples/models/cross_entropy.py" "$O/spec/"
cp "$here/planted/sitecustomize.py" "$O/plant/"
cat >"$O/spec/Koptfile" <<'SPEC'
device h200 { gpus = 1  timeout = 20m }
agents a { budget = 2  hot = 0.05  seed = 1  screen = 30s }
defaults { device = h200  agents = a }
model ce { source = "cross_entropy.py" }
target all = [ce]
SPEC
export KOPT_PLANT_FILE=$O/plant/state
export KOPT_SANDBOX_WRITE=$O/plant${KOPT_SANDBOX_WRITE:+:$KOPT_SANDBOX_WRITE}
export PYTHONPATH=$O/plant${PYTHONPATH:+:$PYTHONPATH}
rc=0
(cd "$O/spec" && "$K" all) >"$O/build.out" 2>"$O/build.err" || rc=$?
python3 - "$K" "$O" "$rc" <<'PY'
import glob, os, re, subprocess, sys
k, o, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
n = bad = 0
def ok(cond, what, diag=""):
    global n, bad
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {what}")
    if not cond:
        bad += 1
        if diag:
            print("# " + str(diag)[-1500:].replace("\n", "\n# "))
err = open(os.path.join(o, "build.err")).read()
ok(rc == 0 and "failed" not in err, "the build succeeds, no step failed", err)
state = open(os.path.join(o, "plant", "state")).read() if os.path.exists(os.path.join(o, "plant", "state")) else ""
planted = next((x[len("planted screen "):] for x in state.splitlines() if x.startswith("planted ")), None)
ok(planted is not None, f"a screen loaded the planted config ({planted})", state)
report = open(os.path.join(o, "spec", "kopt-out", "ce", "report.md")).read() if os.path.exists(
    os.path.join(o, "spec", "kopt-out", "ce", "report.md")) else ""
ok("1 config lost the CUDA context and failed (the worker was replaced, and the screen went on without it)" in report,
   "the model's report says one config lost the CUDA context", report[-1500:])
# the kernel whose screen lost it: the candidates' header above that sentence
kernel = None
for m in re.finditer(r"^(triton_\w+) \(variant (\w[\w-]*)\):", report, re.M):
    rest = report[m.end():]
    nxt = re.search(r"^triton_\w+ \(variant ", rest, re.M)
    if "lost the CUDA context" in rest[:nxt.start() if nxt else len(rest)]:
        kernel = (m.group(1), m.group(2))
why = ""
if kernel:
    why = subprocess.run([k, "-C", os.path.join(o, "spec"), "-t", "why", f"screen ce/{kernel[1]}/{kernel[0]}"],
                         capture_output=True, text=True).stdout
rows = [r for r in why.splitlines() if re.match(r"^  \| \d+ \| ", r)]
lost = [i for i, r in enumerate(rows) if "it lost the CUDA context" in r]
ok(len(lost) == 1 and "illegal memory access" in rows[lost[0]],
   "-t why screen: one config failed, the reason the illegal memory access", why)
ok(lost and any(re.search(r"\| [0-9.]+x \|", r) for r in rows[lost[0] + 1:]),
   "the screen went on after it: configs measured in the next worker", why)
best = [r for r in why.splitlines() if r.startswith("  best ")]
ok(best and lost and not any(rows[lost[0]].split("|")[2].strip() in b for b in best),
   "the failed config is not among the screen's best", why)
logs = "".join(open(p, errors="replace").read() for p in glob.glob(os.path.join(o, "spec", ".kopt", "workers", "*.log")))
ok("kopt: the CUDA context is lost" in logs, "a worker's log says its CUDA context was lost", logs[-800:])
print(f"1..{n}")
sys.exit(1 if bad else 0)
PY
