## agents/llm.mk: the LLM backends (HTTP client, OpenAI and Anthropic APIs,
## prompts) and their tests against a local replay server (a test double).
libkopt_a_SOURCES += agents/llm.h \
	agents/llm/provider.h agents/llm/wire.h agents/llm/wire.c agents/llm/llm.c agents/llm/openai.c \
	agents/llm/anthropic.c agents/llm/prompt.c \
	agents/llm/coder.c agents/llm/run.h agents/llm/run.c \
	agents/llm/facts.h agents/llm/facts.c agents/llm/trajectory.h agents/llm/trajectory.c

check_PROGRAMS += tests/llm/prompt_test tests/llm/llm_test
tests_llm_prompt_test_SOURCES = tests/llm/prompt_test.c tests/tap.h
tests_llm_llm_test_SOURCES = tests/llm/llm_test.c tests/llm/replay.h tests/tap.h
tests_llm_llm_test_CPPFLAGS = $(AM_CPPFLAGS) -DKOPT_TEST_PYTHON='"$(PYTHON)"'
TESTS += tests/llm/prompt_test tests/llm/llm_test
EXTRA_DIST += tests/llm/replay_server.py tests/llm/scripts tests/llm/replies
check_PROGRAMS += tests/llm/agents_llm_test
tests_llm_agents_llm_test_SOURCES = tests/llm/agents_llm_test.c tests/llm/replay.h tests/tap.h
tests_llm_agents_llm_test_CPPFLAGS = $(AM_CPPFLAGS) -DKOPT_TEST_PYTHON='"$(PYTHON)"'
TESTS += tests/llm/agents_llm_test
check_PROGRAMS += tests/llm/prompt_golden_test
tests_llm_prompt_golden_test_SOURCES = tests/llm/prompt_golden_test.c tests/tap.h
TESTS += tests/llm/prompt_golden_test
check_PROGRAMS += tests/llm/handed_test
tests_llm_handed_test_SOURCES = tests/llm/handed_test.c tests/tap.h
TESTS += tests/llm/handed_test
EXTRA_DIST += tests/llm/golden
TESTS += tests/llm/oracle.sh
EXTRA_DIST += tests/llm/oracle.sh tests/llm/oracle_server.py tests/llm/oracle-worker.py
