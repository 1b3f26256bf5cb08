#!/bin/sh
# tests/runtime/cachetrust.sh: no compile where another user may write the compile caches (kopt.cachetrust)
exec python3 "${top_srcdir:-.}/tests/runtime/test_cachetrust.py"
