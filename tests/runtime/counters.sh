#!/bin/sh
# tests/runtime/counters.sh: the profile's DRAM bytes on the CPU, the
# GPU's counters a test double (test_counters.py). Needs torch (any
# version, CPU is enough).
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
torch_test test_counters.py
