#!/bin/sh
# tests/runtime/graphkeys.sh: the graph cache's keys, recorded, against a test double of Inductor's key function
exec python3 "${top_srcdir:-.}/tests/runtime/test_graphkeys.py" "$@"
