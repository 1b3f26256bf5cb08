#!/bin/bash
# tests/gpu/smoke.sh: the worker on the GPU machine, through the protocol:
# capture, profile and verify (a launch-config candidate) on two small models,
# and a model that fails to import. Usage: smoke.sh WORKER OUTDIR
set -u
W=$1; O=$2; here=$(cd "$(dirname "$0")" && pwd)
m() { printf '{"name":"%s","kind":"torch","path":"%s/models/%s.py"}' "$1" "$here" "$1"; }
V='{"name":"default","mode":null,"options":{},"aten_fallback":[],"cudnn_benchmark":false}'
G='{"seeds":3,"atol":1e-4,"rtol":1e-4,"atol_half":1e-2,"rtol_half":1e-2,"fp64_fallback":true,"gamma":1.03,"repeats":10,"precision":"strict"}'
S=$(m small_softmax); C=$(m small_convnet); B=$(m bad_import)
python3 "$here/wclient.py" "$W" "$O" \
  '{"op":"ping"}' \
  '{"op":"bandwidth"}' \
  "{\"op\":\"capture\",\"model\":$S,\"variant\":$V,\"seed\":0}" \
  "{\"op\":\"profile\",\"model\":$S,\"variant\":$V,\"seed\":0,\"warmup\":3,\"calls\":20}" \
  "{\"op\":\"capture\",\"model\":$C,\"variant\":$V,\"seed\":0}" \
  "{\"op\":\"profile\",\"model\":$C,\"variant\":$V,\"seed\":0,\"warmup\":3,\"calls\":20}" \
  "{\"op\":\"capture\",\"model\":$B,\"variant\":$V,\"seed\":0}" \
  "{\"op\":\"capture\",\"model\":$S,\"variant\":$V,\"seed\":0}"
echo "wclient exit $?"
