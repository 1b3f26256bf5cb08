#!/bin/sh
# tests/runtime/kernel_args.sh: a profile's bytes per kernel
# (kopt.inductor.record_kernel_args, moved_bytes). Needs torch (any
# version, CPU is enough).
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
torch_test test_kernel_args.py
