#!/bin/sh
# tests/runtime/attention_host.sh: kopt::attention's host side (the launch
# of its Triton kernel) and its CPU form. Needs torch (any version, CPU).
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
torch_test test_attention_host.py
