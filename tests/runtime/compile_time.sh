#!/bin/sh
# tests/runtime/compile_time.sh: where a compile's seconds went (kopt.compile_time)
exec python3 "${top_srcdir:-.}/tests/runtime/test_compile_time.py"
