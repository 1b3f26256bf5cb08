#!/bin/sh
# tests/runtime/preflight.sh: kopt.preflight against test doubles of torch and triton
exec python3 "${top_srcdir:-.}/tests/runtime/test_preflight.py"
