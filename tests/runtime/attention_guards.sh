#!/bin/sh
# tests/runtime/attention_guards.sh: the attention rewrite's softmax guard on hand-built graphs. Needs torch (any version, CPU).
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
torch_test test_attention_guards.py
