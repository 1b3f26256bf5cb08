#!/bin/bash
# tests/gpu/cheats.sh: the reward-hacking suite. Captures the small softmax,
# plants the candidates of cheats.py, verifies each in the worker and decides
# with koptmake's gates (gate-decide). Each cheat must be rejected by the gate
# it names; honest variants must pass where a screen on this machine found a
# config clearly faster than Inductor's, fail the performance gate where
# none is faster, and get either verdict of that gate in between
# (cheats.py). Prints TAP and a table (cheats.md).
#   cheats.sh WORKER OUTDIR          (run from the build folder)
set -u
W=$1; O=$2; here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$O"
M="{\"name\":\"small_softmax\",\"kind\":\"torch\",\"path\":\"$here/models/small_softmax.py\"}"
V='{"name":"default","mode":null,"options":{},"aten_fallback":[],"cudnn_benchmark":false}'
G='{"seeds":5,"atol":1e-4,"rtol":1e-4,"atol_half":1e-2,"rtol_half":1e-2,"fp64_fallback":true,"gamma":1.03,"repeats":15,"min_pairs":6,"precision":"strict"}'
python3 "$here/wclient.py" "$W" "$O/cap" "{\"op\":\"capture\",\"model\":$M,\"variant\":$V,\"seed\":0}" >"$O/capture.log" 2>&1 \
	|| { echo "not ok 1 - capture for the suite"; cat "$O/capture.log"; echo "1..1"; exit 1; }
# the honest candidates' config: the fastest that a screen of the kernel
# finds on this machine (cheats.py says what each must then get)
K=$(python3 "$here/cheats.py" --kernel "$O/cap/reply-1-capture.json")
python3 "$here/wclient.py" "$W" "$O/screen" "{\"op\":\"screen\",\"model\":$M,\"variant\":$V,\"seed\":0,\"kernel\":\"$K\",\"gates\":$G,\"starts\":[],\"budget_s\":20,\"max_configs\":64,\"keep\":4,\"reps\":7,\"knobs\":false}" \
	>"$O/screen.log" 2>&1 || { echo "not ok 1 - the screen for the honest config"; tail -5 "$O/screen.log"; echo "1..1"; exit 1; }
python3 "$here/cheats.py" "$O/cap/reply-1-capture.json" "$O/screen/reply-1-screen.json" >"$O/suite.json"
reqs=()
for i in $(python3 -c "import json,sys; print(' '.join(str(i) for i in range(len(json.load(open(sys.argv[1]))))))" "$O/suite.json"); do
	python3 - "$O/suite.json" "$i" "$M" "$V" "$G" >"$O/req-$i.json" <<'PY'
import json, sys
suite = json.load(open(sys.argv[1])); c = suite[int(sys.argv[2])]
print(json.dumps({"op": "verify", "model": json.loads(sys.argv[3]), "variant": json.loads(sys.argv[4]),
                  "seed": 0, "kernel": c["kernel"], "candidate": c["candidate"], "gates": json.loads(sys.argv[5]),
                  "tag": c["id"]}))
PY
	reqs+=("$O/req-$i.json")
done
python3 "$here/wclient.py" "$W" "$O/verify" "${reqs[@]}" >"$O/verify.log" 2>"$O/worker.log"
n=0; bad=0
printf '| candidate | what | expected | verdict | reason |\n|---|---|---|---|---|\n' >"$O/cheats.md"
for i in "${!reqs[@]}"; do
	n=$((n + 1))
	id=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))[$i]; print(c['id'])" "$O/suite.json")
	what=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))[$i]; print(c['what'])" "$O/suite.json")
	want=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))[$i]; print(c['expect'])" "$O/suite.json")
	must=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))[$i]; print(c.get('reason', ''))" "$O/suite.json")
	f=$(ls "$O"/verify/reply-$((i + 1))-verify.json 2>/dev/null)
	line=$( [ -n "$f" ] && ./tests/gpu/gate-decide "$f" | head -n 1 || echo "error: no reply")
	verdict=${line%%:*}
	got=${verdict#* }; [ "${verdict%% *}" = pass ] && got=pass
	reason=${line#*: }
	printf '| %s | %s | %s | %s | %s |\n' "$id" "$what" "$want" "$got" "$reason" >>"$O/cheats.md"
	# an expectation may name several verdicts: pass|perf (cheats.py)
	# and a cheat may name what its reason must say (the gate's part that caught it)
	if case "|$want|" in *"|$got|"*) true ;; *) false ;; esac && case "$reason" in *"$must"*) true ;; *) false ;; esac; then
		echo "ok $n - $id: $want${must:+ ($must)}"
	else
		echo "not ok $n - $id: want $want${must:+ with \"$must\"}, got: $line"; bad=$((bad + 1))
	fi
done
echo "1..$n"
cat "$O/cheats.md"
[ $bad -eq 0 ]
