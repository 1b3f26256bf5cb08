#!/bin/sh
# tests/runtime/transforms_cpu.sh: kopt.transforms compute what Inductor's kernels compute, on a CPU double of Triton
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
torch_test test_transforms_cpu.py
