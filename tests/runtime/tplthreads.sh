#!/bin/sh
# tests/runtime/tplthreads.sh: max-autotune's template choices precompiled in the worker's threads (kopt.tplthreads)
exec python3 "${top_srcdir:-.}/tests/runtime/test_tplthreads.py"
