#!/bin/sh
# tests/runtime/helion_gate.sh: gate 1 for edits of the Triton module Helion generates, on a recorded capture
exec python3 "${top_srcdir:-.}/tests/runtime/test_helion_gate.py"
