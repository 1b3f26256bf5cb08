#!/bin/bash
# tests/gpu/record-fixtures.sh: re-records every GPU output that the CPU
# tests replay (tests/fixtures/gpu/), on a machine with an NVIDIA GPU, and
# writes their manifest (tests/gpu/manifest.py: the machine, the commit, the
# date, each file's hash and recipe). Run from the build folder after
# `make`, in a clean checkout (the manifest names the commit):
#     bash SRCDIR/tests/gpu/record-fixtures.sh
# Then review `git diff tests/fixtures/gpu` and commit.
#
# The recipes:
#   smoke    tests/gpu/smoke.sh (capture and profile of the small models),
#            passing tests/gpu/check_smoke.py
#   smoke2   tests/gpu/smoke2.sh (raw CUPTI records, a standalone Triton
#            kernel), every reply ok
#   cheats   tests/gpu/cheats.sh (the reward-hacking suite), every case as
#            expected
#   vendor   capture and profile of the examples whose kernels call cuBLASLt
#            or cuDNN; the vendor part of each profile reply
#   modules  every module Inductor loads while compiling cross_entropy's
#            max-autotune variant (tests/gpu/record-modules.py)
# Any recipe that fails, or whose checks fail, stops the script before a
# file is replaced: nothing of a failing run is kept.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
fix=$top/tests/fixtures/gpu
W=${KOPT_WORKER:-$PWD/kopt-worker}
# the workers started by hand read the source tree's models (runtime/sandbox.h)
export KOPT_SANDBOX_READ=$top${KOPT_SANDBOX_READ:+:$KOPT_SANDBOX_READ}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "record-fixtures: $*; nothing was recorded (logs in $tmp kept)" >&2; trap - EXIT; exit 1; }

commit=$(git -C "$top" rev-parse --short=12 HEAD) || fail "not a git checkout"
[ -z "$(git -C "$top" status --porcelain --untracked-files=no -- . ':!tests/fixtures/gpu')" ] ||
	fail "the checkout has uncommitted changes: the manifest could not name the code that recorded"
date=$(date -u +%Y-%m-%d)

bash "$here/smoke.sh" "$W" "$tmp/smoke" >"$tmp/smoke.log" 2>"$tmp/smoke-worker.log" || fail "smoke.sh failed"
python3 "$here/check_smoke.py" "$tmp/smoke" >"$tmp/smoke.tap" || fail "the smoke run fails its checks ($tmp/smoke.tap)"
bash "$here/smoke2.sh" "$W" "$tmp/smoke2" >"$tmp/smoke2.log" 2>"$tmp/smoke2-worker.log" || fail "smoke2.sh failed"
grep -qx 'wclient exit 0' "$tmp/smoke2.log" || fail "a reply of smoke2.sh is not ok ($tmp/smoke2.log)"
bash "$here/cheats.sh" "$W" "$tmp/cheats" >"$tmp/cheats.tap" 2>&1 || fail "the reward-hacking suite fails ($tmp/cheats.tap)"

# vendor: the examples with vendor calls, captured and profiled as koptmake does
V='{"name":"default","mode":null,"options":{},"aten_fallback":[],"cudnn_benchmark":false}'
vendor_models="conv2d_relu matmul_epilogue mlp transformer_block"
reqs=()
for m in $vendor_models; do
	M="{\"name\":\"$m\",\"kind\":\"torch\",\"path\":\"$top/examples/models/$m.py\"}"
	reqs+=("{\"op\":\"capture\",\"model\":$M,\"variant\":$V,\"seed\":0}")
	reqs+=("{\"op\":\"profile\",\"model\":$M,\"variant\":$V,\"seed\":0,\"warmup\":3,\"calls\":20}")
done
python3 "$here/wclient.py" "$W" "$tmp/vendor" "${reqs[@]}" >"$tmp/vendor.log" 2>"$tmp/vendor-worker.log" ||
	fail "a capture or profile of the vendor recipe failed ($tmp/vendor.log)"
python3 - "$tmp/vendor" "$date" $vendor_models >"$tmp/vendor-calls.json" <<'EOF' || fail "the vendor replies lack their vendor part"
import glob, json, os, sys
out, date, names = sys.argv[1], sys.argv[2], sys.argv[3:]
env = json.load(open(os.path.join(out, "hello.json")))["env"]
models = {}
for i, name in enumerate(names):
    rep = json.load(open(os.path.join(out, f"reply-{2 * i + 2}-profile.json")))["reply"]
    vendor = rep["result"]["vendor"]
    assert vendor.get("calls") and "error" not in vendor, (name, vendor)
    models[name] = vendor
libs = next(iter(models.values())).get("status", {})
rec = (f"{env['gpu']}, driver {env['driver']}, torch {env['torch']}, {libs.get('cublaslt', '-')}, {libs.get('cudnn', '-')}; "
       f"tests/gpu/record-fixtures.sh, {date}; the vendor part of each model's profile reply")
print(json.dumps({"recorded": rec, "models": models}, indent=1, sort_keys=True))
EOF

# modules: what Inductor loads for cross_entropy under max-autotune
python3 "$here/record-modules.py" "$top/examples/models/cross_entropy.py" max-autotune-no-cudagraphs \
	"$tmp/output-cross_entropy-autotune.py" >"$tmp/modules.log" 2>&1 || fail "record-modules.py failed ($tmp/modules.log)"

# every check passed: replace the fixtures, then write their manifest
cp "$tmp/smoke/hello.json" "$fix/hello.json"
cp "$tmp/cheats/cap/reply-1-capture.json" "$fix/capture-small_softmax.json"
cp "$tmp/smoke/reply-5-capture.json" "$fix/capture-small_convnet.json"
cp "$tmp/smoke/reply-4-profile.json" "$fix/profile-small_softmax.json"
cp "$tmp/smoke2/reply-1-profile.json" "$fix/profile-raw-small_softmax.json"
cp "$tmp/smoke2/reply-5-capture.json" "$fix/capture-small_triton.json"
cp "$tmp/smoke2/reply-6-profile.json" "$fix/profile-small_triton.json"
# the suite's order (cheats.py): 9 fp16-math, 14 honest-config, 16 honest-same
cp "$tmp/cheats/verify/reply-9-verify.json" "$fix/verify-fp16-small_softmax.json"
cp "$tmp/cheats/verify/reply-14-verify.json" "$fix/verify-pass-small_softmax.json"
cp "$tmp/cheats/verify/reply-16-verify.json" "$fix/verify-perf-small_softmax.json"
cp "$tmp/vendor-calls.json" "$fix/vendor-calls.json"
cp "$tmp/output-cross_entropy-autotune.py" "$fix/output-cross_entropy-autotune.py"
python3 "$here/manifest.py" write "$fix" "$commit" "$date" \
	"hello.json=smoke: the worker's hello" \
	"capture-small_softmax.json=cheats: the suite's capture (reply 1)" \
	"capture-small_convnet.json=smoke: reply 5, capture" \
	"profile-small_softmax.json=smoke: reply 4, profile" \
	"profile-raw-small_softmax.json=smoke2: reply 1, profile with raw CUPTI records" \
	"capture-small_triton.json=smoke2: reply 5, capture of a standalone Triton kernel" \
	"profile-small_triton.json=smoke2: reply 6, profile" \
	"verify-fp16-small_softmax.json=cheats: reply 9, fp16-math" \
	"verify-pass-small_softmax.json=cheats: reply 14, honest-config" \
	"verify-perf-small_softmax.json=cheats: reply 16, honest-same" \
	"vendor-calls.json=vendor: $vendor_models" \
	"output-cross_entropy-autotune.py=modules: cross_entropy, max-autotune-no-cudagraphs"
python3 "$here/manifest.py" check "$fix" || fail "the new manifest does not check"
echo "recorded into $fix at $commit"
