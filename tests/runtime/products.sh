#!/bin/sh
# tests/runtime/products.sh: the split-precision products rewrite
# (kopt.tf32x3_products) on the CPU. Needs torch (any version with make_fx,
# CPU is enough: tests/runtime/torch-python.sh finds it); without it, skipped.
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
if py=$(torch_python); then
	torch_said "$py"
	exec "$py" "${top_srcdir:-.}/tests/runtime/test_products.py"
fi
echo "1..0 # SKIP no Python with torch"
