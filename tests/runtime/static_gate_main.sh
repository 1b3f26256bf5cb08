#!/bin/sh
# tests/runtime/static_gate_main.sh: gate 1's command, its exit status and its line for each outcome
exec python3 "${top_srcdir:-.}/tests/runtime/test_static_gate_main.py"
