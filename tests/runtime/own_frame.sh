#!/bin/sh
# tests/runtime/own_frame.sh: each compiled variant's own frame
# (kopt.inductor.own_frame). Needs torch (any version, CPU is enough).
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
torch_test test_own_frame.py
