#!/bin/sh
# tests/layout.sh: DESIGN.md's Layout section names every file that
# `git ls-files` lists, and nothing else (tests/layout.py says how it is
# read; a tarball, without git, skips it); tests/layout-self.sh checks the
# reader on made-up layouts. Prints TAP.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
cd "$top_srcdir" || exit 1
if [ ! -e .git ] || ! command -v git > /dev/null 2>&1; then
	echo "1..0 # SKIP not a git checkout"
	exit 0
fi
git ls-files | exec python3 tests/layout.py DESIGN.md
