#!/bin/sh
# tests/gates-recorded.sh: koptmake's gates on verify numbers recorded on the
# H200 (tests/fixtures/gpu/, the reward-hacking suite's softmax): a faster
# launch config passes, the baseline's own config fails the perf gate inside
# the noise, a half-precision rewrite fails gate 3 under strict. TAP.
set -eu
D=$top_builddir/tests/gpu/gate-decide
F=$top_srcdir/tests/fixtures/gpu
if ! bad=$(python3 "$top_srcdir/tests/gpu/manifest.py" check "$F"); then
	echo "Bail out! the GPU fixtures do not match their manifest: $bad"
	exit 1
fi
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
out=$("$D" "$F/verify-pass-small_softmax.json" || true)
check "recorded faster config: pass" "echo \"\$out\" | head -n 1 | grep -q '^pass '"
out=$("$D" "$F/verify-perf-small_softmax.json" || true)
check "recorded baseline config: fail at perf" "echo \"\$out\" | head -n 1 | grep -q '^fail perf: perf: kernel speedup'"
out=$("$D" "$F/verify-fp16-small_softmax.json" || true)
check "recorded fp16 rewrite: fail at fp64 under strict" "echo \"\$out\" | head -n 1 | grep -q '^fail fp64: .*less precise than the baseline'"
echo "1..$n"
