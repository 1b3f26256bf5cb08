#!/bin/sh
# tests/runtime/graphcopy.sh: a CUDA graph's inputs copied by plain copies where large (kopt.graphcopy)
exec python3 "${top_srcdir:-.}/tests/runtime/test_graphcopy.py"
