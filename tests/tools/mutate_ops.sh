#!/bin/sh
# tests/tools/mutate_ops.sh: tools/mutate's own rules (its mutants' IDs,
# the equivalence file's arguments and when they go stale), on files of
# its own (tests/tools/test_mutate_ops.py). Prints TAP.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
export top_srcdir
exec python3 "$top_srcdir/tests/tools/test_mutate_ops.py"
