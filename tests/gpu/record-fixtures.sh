#!/bin/bash
# tests/gpu/record-fixtures.sh: re-records the GPU outputs that the CPU tests
# replay (tests/fixtures/gpu/), on a machine with an NVIDIA GPU. Run from the
# build folder after `make`:  bash SRCDIR/tests/gpu/record-fixtures.sh
# Then review `git diff tests/fixtures/gpu` and commit.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fix=$here/../fixtures/gpu
W=${KOPT_WORKER:-$PWD/kopt-worker}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$here/smoke.sh" "$W" "$tmp/smoke" >/dev/null 2>&1
bash "$here/smoke2.sh" "$W" "$tmp/smoke2" >/dev/null 2>&1
bash "$here/cheats.sh" "$W" "$tmp/cheats" >/dev/null 2>&1 || true
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
echo "recorded into $fix"
