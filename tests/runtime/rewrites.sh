#!/bin/sh
# tests/runtime/rewrites.sh: koptmake's own graph rewrites (kopt.rewrites).
# Their numbers need torch (any version with torch.ops.aten and make_fx, CPU
# is enough: tests/runtime/torch-python.sh finds it); with none, only the
# option handling runs and the test says so.
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
t="${top_srcdir:-.}/tests/runtime/test_rewrites.py"
if py=$(torch_python); then
	torch_said "$py"
	exec "$py" "$t"
fi
exec python3 "$t"
