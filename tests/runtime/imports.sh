#!/bin/sh
# tests/runtime/imports.sh: the GPU-side Python parses, and no function reads a name its own dotted import rebinds
exec python3 "${top_srcdir:-.}/tests/runtime/test_imports.py"
