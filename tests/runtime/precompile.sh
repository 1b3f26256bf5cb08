#!/bin/sh
# tests/runtime/precompile.sh: the screen's compile children (kopt.precompile), with test doubles for the children
exec python3 "${top_srcdir:-.}/tests/runtime/test_precompile.py"
