#!/bin/sh
# tests/runtime/memcheck.sh: gate 1's memcheck hook against a compute-sanitizer test double
exec python3 "${top_srcdir:-.}/tests/runtime/test_memcheck.py"
