#!/bin/bash
# tests/gpu/examples.sh: capture and profile every example through the worker
# protocol (without the engine), and check the profile's arithmetic: kernel
# times add up to within 10% of the device time per call.
#   examples.sh WORKER OUTDIR
set -u
W=$1; O=$2; here=$(cd "$(dirname "$0")" && pwd); ex=$(cd "$here/../../examples" && pwd)
V='{"name":"default","mode":null,"options":{},"aten_fallback":[],"cudnn_benchmark":false}'
reqs=()
for f in "$ex"/models/*.py "$ex"/kernels/*.py; do
	kind=torch; case $f in */kernels/*) kind=triton;; esac
	name=$(basename "$f" .py)
	M="{\"name\":\"$name\",\"kind\":\"$kind\",\"path\":\"$f\"}"
	reqs+=("{\"op\":\"capture\",\"model\":$M,\"variant\":$V,\"seed\":0}")
	reqs+=("{\"op\":\"profile\",\"model\":$M,\"variant\":$V,\"seed\":0,\"warmup\":3,\"calls\":10}")
done
python3 "$here/wclient.py" "$W" "$O" "${reqs[@]}" >"$O.log" 2>"$O-worker.log"
python3 - "$O" <<'PY'
import glob, json, os, sys
out = sys.argv[1]; n = bad = 0
rows = []
for f in sorted(glob.glob(os.path.join(out, "reply-*-profile.json")), key=lambda p: int(p.split("-")[-2])):
    d = json.load(open(f)); rep = d["reply"]; name = d["request"]["model"]["name"]
    n += 1
    if not rep.get("ok"):
        print(f"not ok {n} - {name}: profile failed: {rep.get('error')}"); bad += 1; continue
    r = rep["result"]; ks = sum(k["ns_per_call"] for k in r["kernels"]); dev = r["device_ns_per_call"]
    good = abs(ks - dev) <= 0.10 * dev
    bad += not good
    print(f"{'' if good else 'not '}ok {n} - {name}: kernels {ks/1e3:.1f} us vs device {dev/1e3:.1f} us")
    top = r["kernels"][0]
    rows.append(f"| {name} | {r['model_ns_per_call']/1e3:.1f} | {dev/1e3:.1f} | {ks/1e3:.1f} | {len(r['kernels'])} | {top['name'][:48]} ({top['kind']}) | {top['share']:.2f} | {(top['frac_peak'] or 0):.2f} |")
print(f"1..{n}")
with open(out + ".md", "w") as f:
    f.write("| model | model us/call | device us/call | kernel sum us | kernels | top kernel | share | of copy bw |\n|---|---|---|---|---|---|---|---|\n")
    f.write("\n".join(rows) + "\n")
print(open(out + ".md").read())
sys.exit(1 if bad else 0)
PY
