#!/bin/sh
# tests/runtime/verify_kept.sh: the correctness gate's copy of the
# baseline's outputs keeps their strides (kopt.verify.kept). Needs torch
# (any version, CPU is enough): the first of $KOPT_TEST_TORCH_PYTHON,
# python3 and /usr/bin/python3 (Debian's python3-torch) that has it; with
# none the test says it is skipped.
t="${top_srcdir:-.}/tests/runtime/test_verify_kept.py"
for py in ${KOPT_TEST_TORCH_PYTHON:-} python3 /usr/bin/python3; do
	if "$py" -c 'import torch' >/dev/null 2>&1; then
		echo "# $py, torch $("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
		exec "$py" "$t"
	fi
done
echo "ok 1 # SKIP no Python with torch"
echo "1..1"
