#!/bin/sh
# tests/conventions/textmate.sh: the TextMate grammar for .kopt on a sample (textmate.py)
exec python3 "${top_srcdir:-.}/tests/conventions/textmate.py"
