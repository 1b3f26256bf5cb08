#!/bin/sh
# tests/runtime/rewrites.sh: koptmake's own graph rewrites (kopt.rewrites).
# Their numbers need torch (any version with torch.ops.aten and make_fx, CPU
# is enough): the first of $KOPT_TEST_TORCH_PYTHON, python3 and
# /usr/bin/python3 (Debian's python3-torch) that has it runs them; with
# none, only the option handling runs and the test says so.
t="${top_srcdir:-.}/tests/runtime/test_rewrites.py"
for py in ${KOPT_TEST_TORCH_PYTHON:-} python3 /usr/bin/python3; do
	if "$py" -c 'import torch' >/dev/null 2>&1; then
		echo "# $py, torch $("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
		exec "$py" "$t"
	fi
done
exec python3 "$t"
