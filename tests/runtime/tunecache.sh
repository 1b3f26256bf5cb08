#!/bin/sh
# tests/runtime/tunecache.sh: a kernel from the graph cache keeps coordinate descent's cached launch config (kopt.tunecache)
exec python3 "${top_srcdir:-.}/tests/runtime/test_tunecache.py"
