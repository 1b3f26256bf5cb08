#!/bin/sh
# tests/runtime/transforms.sh: kopt.transforms' text on recorded Inductor kernels, golden, gate 1 on each
exec python3 "${top_srcdir:-.}/tests/runtime/test_transforms.py"
