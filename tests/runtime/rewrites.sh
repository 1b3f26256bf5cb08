#!/bin/sh
# tests/runtime/rewrites.sh: koptmake's own graph rewrites (kopt.rewrites);
# their numbers need torch, which make check-gpu's Python has
exec python3 "${top_srcdir:-.}/tests/runtime/test_rewrites.py"
