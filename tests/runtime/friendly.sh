#!/bin/sh
# tests/runtime/friendly.sh: the kopt package's errors say what to do, run
# with Debian's python3 (/usr/bin/python3, which has no torch.compile: its
# python3-torch, 1.13, may or may not be installed), else python3.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "${top_srcdir:-.}/tests/runtime/test_friendly.py"
