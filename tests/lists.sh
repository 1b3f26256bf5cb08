#!/bin/sh
# tests/lists.sh: every fact written in both languages, or several times
# in one, against its one source (tests/lists.py says which; issue 41).
# Prints TAP.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
exec python3 "$top_srcdir/tests/lists.py" --src "$top_srcdir" --dump "$top_builddir/tests/unit/lists_dump"
