#!/bin/bash
# tests/gpu/smoke2.sh: verify (launch-config candidates), stitch, a standalone
# Triton kernel, raw CUPTI records for fixtures. Usage: smoke2.sh WORKER OUTDIR
set -u
W=$1; O=$2; here=$(cd "$(dirname "$0")" && pwd)
m() { printf '{"name":"%s","kind":"%s","path":"%s/models/%s.py"}' "$1" "${2:-torch}" "$here" "$1"; }
V='{"name":"default","mode":null,"options":{},"aten_fallback":[],"cudnn_benchmark":false}'
G='{"seeds":3,"atol":1e-4,"rtol":1e-4,"atol_half":1e-2,"rtol_half":1e-2,"fp64_fallback":true,"gamma":1.03,"repeats":10,"precision":"strict"}'
S=$(m small_softmax); T=$(m small_triton triton)
K=triton_red_fused__softmax_add_exp_mul_prepare_softmax_online_sub_0
c1='{"source":null,"config":{"XBLOCK":1,"R0_BLOCK":2048,"num_warps":8,"num_stages":1}}'
c2='{"source":null,"config":{"XBLOCK":1,"R0_BLOCK":1024,"num_warps":4,"num_stages":1}}'
python3 "$here/wclient.py" "$W" "$O" \
  "{\"op\":\"profile\",\"model\":$S,\"variant\":$V,\"seed\":0,\"warmup\":3,\"calls\":5,\"raw\":true}" \
  "{\"op\":\"verify\",\"model\":$S,\"variant\":$V,\"seed\":0,\"kernel\":\"$K\",\"candidate\":$c1,\"gates\":$G}" \
  "{\"op\":\"verify\",\"model\":$S,\"variant\":$V,\"seed\":0,\"kernel\":\"$K\",\"candidate\":$c2,\"gates\":$G}" \
  "{\"op\":\"stitch\",\"model\":$S,\"variant\":$V,\"seed\":0,\"winners\":[{\"kernel\":\"$K\",\"candidate\":$c1}],\"gates\":$G}" \
  "{\"op\":\"capture\",\"model\":$T,\"variant\":$V,\"seed\":0}" \
  "{\"op\":\"profile\",\"model\":$T,\"variant\":$V,\"seed\":0,\"warmup\":3,\"calls\":10}"
echo "wclient exit $?"
