#!/bin/sh
# tests/runtime/verify_decisions.sh: the worker's decisions in kopt.verify
# (tolerances, compare_output, certain failure, perf's stop). Needs torch
# (any version, CPU is enough).
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
torch_test test_verify_decisions.py
