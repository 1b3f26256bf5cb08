#!/bin/sh
# tests/layout-self.sh: tests/layout.py on made-up layouts with known
# answers. Prints TAP.
exec python3 "${top_srcdir:-.}/tests/layout.py" --self
