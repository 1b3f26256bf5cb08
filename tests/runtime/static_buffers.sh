#!/bin/sh
# tests/runtime/static_buffers.sh: gate 1's "which buffers a pointer is made from" (kopt.static_buffers)
exec python3 "${top_srcdir:-.}/tests/runtime/test_static_buffers.py"
