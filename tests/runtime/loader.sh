#!/bin/sh
# tests/runtime/loader.sh: kopt.loader's input cache against a torch test double
exec python3 "${top_srcdir:-.}/tests/runtime/test_loader.py"
