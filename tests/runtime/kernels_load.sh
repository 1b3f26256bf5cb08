#!/bin/sh
# tests/runtime/kernels_load.sh: a kernel built at one launch config (kopt.kernels), with test doubles of Inductor and Triton
exec python3 "${top_srcdir:-.}/tests/runtime/test_kernels_load.py"
