#!/bin/sh
# tests/runtime/stacks.sh: KOPT_WORKER_STACKS's stack dumps (kopt.stacks)
exec python3 "${top_srcdir:-.}/tests/runtime/test_stacks.py"
