#!/bin/sh
# tests/runtime/package.sh: runtime/python as a package (pip install, metadata, backend="kopt")
exec python3 "${top_srcdir:-.}/tests/runtime/test_package.py"
