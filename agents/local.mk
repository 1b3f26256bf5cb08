## agents/local.mk: included by the top Makefile.am
libkopt_a_SOURCES += agents/candidate.h agents/candidate.c agents/roof.h agents/roof.c agents/features.h agents/features.c \
	agents/agent.h agents/agent.c agents/memory.h agents/memory.c agents/builtin.h \
	agents/builtin/search.c agents/builtin/plan.c agents/builtin/launch.h agents/builtin/launch.c \
	agents/builtin/screened.h agents/builtin/screened.c agents/builtin/persist.h agents/builtin/persist.c \
	agents/builtin/helion.h agents/builtin/helion.c agents/builtin/transform.h agents/builtin/transform.c
include $(srcdir)/agents/llm.mk
check_PROGRAMS += tests/unit/agents_test
tests_unit_agents_test_SOURCES = tests/unit/agents_test.c tests/tap.h
TESTS += tests/unit/agents_test
check_PROGRAMS += tests/unit/roof_test
tests_unit_roof_test_SOURCES = tests/unit/roof_test.c tests/tap.h
TESTS += tests/unit/roof_test
check_PROGRAMS += tests/unit/helion_agents_test
tests_unit_helion_agents_test_SOURCES = tests/unit/helion_agents_test.c tests/tap.h
TESTS += tests/unit/helion_agents_test
# agents/ in layers, read from the object files (issue 41), and the reader
# on object files whose calls are known
TESTS += tests/agents-layers.sh tests/callgraph-self.sh
EXTRA_DIST += tests/agents-layers.sh tests/callgraph-self.sh tests/callgraph.py
# the analyst's kernel transforms and the skills (issue 39)
check_PROGRAMS += tests/unit/transforms_test
tests_unit_transforms_test_SOURCES = tests/unit/transforms_test.c tests/tap.h
TESTS += tests/unit/transforms_test
