#!/bin/sh
# tests/runtime/static_config.sh: gate 1 for a candidate's launch config (kopt.static_config)
exec python3 "${top_srcdir:-.}/tests/runtime/test_static_config.py"
