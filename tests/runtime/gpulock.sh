#!/bin/sh
# tests/runtime/gpulock.sh: several workers' timings on one GPU take turns (kopt.gpulock)
exec python3 "${top_srcdir:-.}/tests/runtime/test_gpulock.py"
