#!/bin/sh
# tests/runtime/tplcut.sh: max-autotune's hopeless template choices timed by one call (kopt.tplcut)
exec python3 "${top_srcdir:-.}/tests/runtime/test_tplcut.py"
