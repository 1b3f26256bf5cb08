check_PROGRAMS += tests/unit/util_test
tests_unit_util_test_SOURCES = tests/unit/util_test.c tests/tap.h
TESTS += tests/unit/util_test
EXTRA_DIST += tests/run
TESTS += tests/runtime/run.sh
EXTRA_DIST += tests/runtime/run.sh tests/runtime/test_runtime.py tests/fixtures/gpu tests/gpu
