#!/bin/sh
# tests/runtime/gate_names.sh: the GPU check of gate 1's names against Triton's and Inductor's modules, on stand-ins
exec python3 "${top_srcdir:-.}/tests/runtime/test_gate_names.py"
