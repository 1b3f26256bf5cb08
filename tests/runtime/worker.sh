#!/bin/sh
# tests/runtime/worker.sh: the worker's request handling (kopt.worker.handle)
# on the CPU, with test doubles for the ops. Needs torch (CPU is enough):
# the first of $KOPT_TEST_TORCH_PYTHON, python3 and /usr/bin/python3 that
# has it; with none, the test says so.
t="${top_srcdir:-.}/tests/runtime/test_worker.py"
for py in ${KOPT_TEST_TORCH_PYTHON:-} python3 /usr/bin/python3; do
	if "$py" -c 'import torch' >/dev/null 2>&1; then
		exec "$py" "$t"
	fi
done
exec python3 "$t"
