#!/bin/sh
# tests/runtime/deploy_table.sh: the deployment's table and the check of
# its swaps (kopt.deploy). Needs torch (any version, CPU is enough).
. "${top_srcdir:-.}/tests/runtime/torch-python.sh"
torch_test test_deploy_table.py
