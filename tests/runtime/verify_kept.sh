#!/bin/sh
# tests/runtime/verify_kept.sh: the correctness gate's copy of the
# baseline's outputs keeps their strides (kopt.verify.kept). Needs torch
# (any version, CPU is enough: tests/runtime/torch-python.sh finds it);
# with none the test says it is skipped.
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
if py=$(torch_python); then
	torch_said "$py"
	exec "$py" "${top_srcdir:-.}/tests/runtime/test_verify_kept.py"
fi
echo "ok 1 # SKIP no Python with torch"
echo "1..1"
