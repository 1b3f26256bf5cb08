#!/bin/sh
# tests/runtime/run.sh: the runtime's torch-free Python on recorded GPU outputs
exec python3 "${top_srcdir:-.}/tests/runtime/test_runtime.py"
