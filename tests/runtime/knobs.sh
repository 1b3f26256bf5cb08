#!/bin/sh
# tests/runtime/knobs.sh: kopt.knobs' edits on recorded Inductor kernels, gate 1 on each
exec python3 "${top_srcdir:-.}/tests/runtime/test_knobs.py"
