#!/bin/sh
# tests/runtime/verify_kept.sh: the correctness gate's copy of the
# baseline's outputs keeps their strides (kopt.verify.kept). Needs torch
# (any version, CPU is enough).
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
torch_test test_verify_kept.py
