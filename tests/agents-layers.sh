#!/bin/sh
# tests/agents-layers.sh: agents/ in layers (issue 41), read from the
# object files' symbols (tests/callgraph.py): no cycle of more than two
# files, and each file calls only its own part or the parts below it:
#   library (0): the candidate library, the roofline, the long-term memory
#                and its terms (agents/candidate, roof, memory, features)
#   builtin (1), llm (1): the built-in and the LLM agents, beside each
#                other: neither calls the other (the dispatcher hands the
#                LLM roles the built-in ones, agents/llm.h)
#   dispatcher (2): agents/agent.c
# A new file of agents/ goes into one of them here. Prints TAP.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
objs=$(find "$top_builddir/agents" -name '*.o' | sort)
# shellcheck disable=SC2086
exec python3 "$top_srcdir/tests/callgraph.py" --root "$top_builddir" \
	--part library:0:agents/candidate,agents/roof,agents/memory,agents/features \
	--part builtin:1:agents/builtin/ \
	--part llm:1:agents/llm/ \
	--part dispatcher:2:agents/agent \
	$objs
