#!/bin/sh
# tests/llm/oracle.sh: the LLM coder end to end, koptmake against two test
# doubles: tests/llm/oracle-worker.py (the small softmax recorded on the
# H200; a candidate runs 1.1x faster per oracle step in its source) and
# tests/llm/oracle_server.py (an LLM API that answers by rule):
#   - oracle: each reply is one more good step on the source it is sent.
#     The loop sends its best, so it reaches the oracle's best (4 steps,
#     1.464x) at round 4; a server that steps from the original each
#     round (as a loop that never sent its best would get) stays at 1.100x
#     in the same budget. The first prompt is the golden one; the tuner's
#     descent runs on the model's source; a null build runs nothing.
#   - a beam of 2 through the Anthropic API: the round's two calls run at
#     once, the context is marked for the provider's cache and read from
#     it, and the report gives calls, tokens and money;
#   - config: a reply with a launch config alone is a candidate;
#   - broken: candidates that do not build, one repair per round, then
#     the built-in search fills the budget;
#   - echo: the API key the server echoes reaches no file and no output;
#   - timeout: a server that never answers costs the kernel's wall budget
#     once, and the built-in search goes on.
# Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
PY=${PYTHON:-python3}
KOPT_WORKER=$top_srcdir/tests/llm/oracle-worker.py
KOPT_LLM_BACKOFF_MS=1
export KOPT_WORKER top_srcdir KOPT_LLM_BACKOFF_MS
if ! "$PY" -c 'import http.server' 2>/dev/null; then
	echo "1..0 # SKIP $PY not found: the test doubles cannot run"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-oracle-XXXXXX")
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
KEY=sk-oracle-test-5f3c9a7e1b2d4c6e8f0a
export KOPT_TEST_LLM_KEY="$KEY"
no_proxy=127.0.0.1,localhost
export no_proxy
K=triton_red_fused__softmax_add_exp_mul_prepare_softmax_online_sub_0
n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; for f in $3; do echo "# $f:"; tail -n 15 "$f" 2>/dev/null | sed "s/^/#   /"; done; fi
}

# serve MODE DIR [ARGS]: the LLM test double in DIR, its port in $PORT
serve() {
	mode=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	"$PY" "$top_srcdir/tests/llm/oracle_server.py" "$mode" --log "$dir/llm.log" --max-seconds 600 "$@" > "$dir/port" &
	pids="$pids $!"
	i=0
	while [ ! -s "$dir/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	PORT=$(head -n 1 "$dir/port")
}

# spec DIR PROVIDER BUDGET LLM-ARGS [AGENTS-FIELDS]
spec() {
	case $2 in openai) url=http://127.0.0.1:$PORT/v1 ;; *) url=http://127.0.0.1:$PORT ;; esac
	llm="llm(\"$2\", model = \"oracle\", url = \"$url\", key_env = \"KOPT_TEST_LLM_KEY\", $4)"
	cat > "$1/t.kopt" <<SPEC
device h200 { gpus = 1  timeout = 60s }
agents default { budget = $3  hot = 0.05  seed = 1  ${5:-}
                 coder = $llm
                 debugger = $llm }
gates strict { seeds = 5  repeats = 15  gamma = 1.03 }
defaults { device = h200  agents = default  gates = strict  allow_roots = ["$top_srcdir/tests/gpu/models"] }
model small_softmax { source = "$top_srcdir/tests/gpu/models/small_softmax.py" }
target all = [small_softmax]
SPEC
}

build() { (cd "$1" && "$KOPTMAKE" -f t.kopt > out 2> err) || true; }

# the report's row of candidate I: "| I | strategy | verdict | speedup | reason |"
row() { grep "^| $2 | " "$1/kopt-out/small_softmax/report.md" || true; }
# the round of the report's best candidate, from its strategy
best_round() {
	b=$(sed -n 's/.*the best at c\([0-9]*\) .*/\1/p' "$1/kopt-out/small_softmax/report.md")
	[ -n "$b" ] && row "$1" "$b" | sed -n 's/.*(round \([0-9]*\),.*/\1/p'
}
best_speedup() { sed -n 's/.*the best at c[0-9]* (\([0-9.]*\)x).*/\1/p' "$1/kopt-out/small_softmax/report.md"; }
why() { (cd "$1" && "$KOPTMAKE" -f t.kopt -t why "propose small_softmax/default/$K/c$2" 2>&1) || true; }

# ---- the oracle, and a loop that starts from the original each round ----
A=$tmp/oracle
serve oracle "$A"
spec "$A" openai 8 "beam = 1"
build "$A"
check "the oracle: the build succeeds" "[ -s '$A/kopt-out/all/report.md' ]" "$A/err"
check "the loop reaches the oracle's best, 1.464x, at round 4 (c6)" \
	"[ \"\$(best_speedup '$A')\" = 1.464 ] && [ \"\$(best_round '$A')\" = 4 ] && grep -q 'the best at c6 ' '$A/kopt-out/small_softmax/report.md'" \
	"$A/kopt-out/small_softmax/report.md"
"$PY" - "$A/llm.log" > "$A/rounds" <<'PY'
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    u = json.loads(r["body"])["messages"][-1]["content"]
    i = u.find("\n## Best so far")
    best = u[i:u.find("\n## Attempts", i)] if i >= 0 else ""
    print(best.count("# kopt-oracle: step "), u.count("\n- c"))
PY
check "each round sends the best source so far (steps 0 1 2 3) and the attempts (0 2 4 6)" \
	"[ \"\$(tr '\n' ' ' < '$A/rounds')\" = '0 0 1 2 2 4 3 6 ' ]" "$A/rounds"
check "after each new best of the model's, the built-in descent runs on its source" \
	"row '$A' 1 | grep -q 'tuner: descent' && why '$A' 1 | grep -q 'kopt-oracle: step 1' && row '$A' 3 | grep -q 'tuner: descent'" \
	"$A/kopt-out/small_softmax/report.md"
"$PY" - "$A/llm.log" > "$A/prompt1.md" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
b = json.loads(r["body"])
sys.stdout.write("[system]\n" + b["messages"][0]["content"] + "\n\n[user]\n" + b["messages"][-1]["content"])
PY
G=$top_srcdir/tests/llm/golden/e2e-small_softmax-round1.md
[ "${KOPT_GOLDEN_UPDATE:-}" = 1 ] && cp "$A/prompt1.md" "$G"
check "the first round's prompt is the golden one (tests/llm/golden/e2e-small_softmax-round1.md)" \
	"cmp -s '$G' '$A/prompt1.md'" ""
[ -f "$G" ] && ! cmp -s "$G" "$A/prompt1.md" && diff -u "$G" "$A/prompt1.md" | head -n 30 | sed 's/^/# /'
check "its device line: the worker's GPU, the profile's copy bandwidth, the FP32 peak" \
	"grep -q '^- device: NVIDIA H200 (compute capability 9.0, 132 SMs, 139.8 GiB)$' '$A/prompt1.md' && grep -q 'copy bandwidth 4159 GB/s (measured), FP32 67.0 TFLOP/s' '$A/prompt1.md'" ""
check "the report gives the model's LLM use" \
	"grep -q '^LLM use: oracle, 4 calls, [0-9]* tokens in' '$A/kopt-out/small_softmax/report.md'" ""
(cd "$A" && "$KOPTMAKE" -f t.kopt -n > null 2>&1) || true
check "a null build runs nothing: the proposals' keys hold" "[ \"\$(cat '$A/null')\" = '0 steps would run' ]" "$A/null"

B=$tmp/original
serve original "$B"
spec "$B" openai 8 "beam = 1"
build "$B"
check "starting from the original each round, the same budget ends at 1.100x" \
	"[ \"\$(best_speedup '$B')\" = 1.100 ] && ! grep -q '1.464x' '$B/kopt-out/small_softmax/report.md'" \
	"$B/kopt-out/small_softmax/report.md"
check "so the loop that sends its best gets there in fewer rounds (4, against none in 8 candidates)" \
	"[ \"\$(best_round '$A')\" -lt 8 ] && [ \"\$(best_speedup '$B')\" != \"\$(best_speedup '$A')\" ]" ""

# ---- a beam of two, the Anthropic API, prompt caching, money ----
C=$tmp/beam
serve oracle "$C" --delay 0.4
spec "$C" anthropic 11 "beam = 2, price_in = 3, price_cached = 0.3, price_out = 15"
build "$C"
"$PY" - "$C/llm.log" > "$C/calls" <<'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
rs.sort(key=lambda r: r["start"])
overlap = len(rs) >= 2 and rs[1]["start"] < rs[0]["end"]
b = json.loads(rs[0]["body"])
blocks = b["messages"][-1]["content"]
marked = isinstance(blocks, list) and blocks[0].get("cache_control") == {"type": "ephemeral"} \
    and blocks[0]["text"].rstrip().endswith("outside it.")
print(len(rs), "parallel" if overlap else "serial", "marked" if marked else "unmarked")
PY
check "a beam of 2: the round's two calls run at once" "grep -q ' parallel ' '$C/calls'" "$C/calls"
check "Anthropic: the context, the user turn's first block, carries cache_control" "grep -q ' marked$' '$C/calls'" "$C/calls"
check "the beam reaches the oracle's best too, at round 4" \
	"[ \"\$(best_speedup '$C')\" = 1.464 ] && [ \"\$(best_round '$C')\" = 4 ]" "$C/kopt-out/small_softmax/report.md"
check "the second reply of a round is a candidate of its own" \
	"row '$C' 1 | grep -q 'round 1, reply 2 of 2'" "$C/kopt-out/small_softmax/report.md"
check "the report: tokens read from the provider's cache, and the money at the spec's prices" \
	"grep -q '^LLM use: oracle, [0-9]* calls, [0-9]* tokens in ([1-9][0-9]* of them from the provider.s cache), [0-9]* out, \\\$[0-9]*\\.[0-9][0-9] (at the spec.s prices)\\.$' '$C/kopt-out/small_softmax/report.md'" \
	"$C/kopt-out/small_softmax/report.md"

# ---- a launch config alone ----
D=$tmp/config
serve config "$D"
spec "$D" openai 2 "beam = 1"
build "$D"
check "a reply with a launch config alone is a candidate, and it passes" \
	"row '$D' 0 | grep -q 'llm launch config (round 1, reply 1 of 1) | pass | 1.1' && why '$D' 0 | grep -q '\"source\": null' && why '$D' 0 | grep -q '\"R0_BLOCK\": 1024'" \
	"$D/kopt-out/small_softmax/report.md"

# ---- broken code ----
E=$tmp/broken
serve broken "$E"
spec "$E" openai 6 "beam = 1"
build "$E"
check "broken code fails gate 1 with the worker's reason, and is repaired once per round" \
	"row '$E' 0 | grep -q 'fail at static | - | static: does not build: SyntaxError' && row '$E' 1 | grep -q 'llm repair of c0 | fail at static' && row '$E' 3 | grep -q 'llm repair of c2'" \
	"$E/kopt-out/small_softmax/report.md"
check "after two rounds that built nothing the built-in search fills the budget" \
	"row '$E' 4 | grep -q '| coder: ' && why '$E' 4 | grep -q 'last 2 rounds gave nothing that built' && [ \$(wc -l < '$E/llm.log') -eq 4 ]" \
	"$E/kopt-out/small_softmax/report.md"

# ---- a server that echoes the key ----
F=$tmp/echo
serve echo "$F"
spec "$F" openai 2 "beam = 1"
build "$F"
check "the echoing server was asked, and the build finished" "[ -s '$F/llm.log' ] && [ -s '$F/kopt-out/all/report.md' ]" "$F/err"
leaks=0
for form in $("$PY" -c 'import base64,sys; k=sys.argv[1]; b=k.encode(); print(k, base64.b64encode(b).decode(), base64.b64encode(b).decode().rstrip("="), base64.urlsafe_b64encode(b).decode(), k[:len(k)//2], k[len(k)//2:])' "$KEY"); do
	if grep -rqF -- "$form" "$F/.kopt" "$F/kopt-out" "$F/out" "$F/err"; then
		leaks=$((leaks + 1))
		echo "# found: $form"
	fi
done
check "the key, its base64 and its halves are in no cache entry, log, report or output" "[ $leaks -eq 0 ]" ""
check "and the echo was scrubbed, not lost: the candidate holds [redacted]" "why '$F' 0 | grep -q 'redacted'" ""

# ---- a server that never answers ----
T=$tmp/timeout
serve timeout "$T"
spec "$T" openai 3 "beam = 1" "wall = 2s"
start=$(date +%s)
build "$T"
took=$(( $(date +%s) - start ))
check "a server that never answers: the build ends in ${took} s (the wall budget is 2 s)" "[ $took -lt 30 ] && [ -s '$T/kopt-out/all/report.md' ]" "$T/err"
check "the first candidate says the call timed out; the built-in search takes every slot" \
	"why '$T' 0 | grep -q 'timed out' && why '$T' 1 | grep -q 'llm_off.*wall time' && row '$T' 0 | grep -q '| coder: '" \
	"$T/kopt-out/small_softmax/report.md"
echo "1..$n"
