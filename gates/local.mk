## gates/local.mk: included by the top Makefile.am
libkopt_a_SOURCES += gates/gates.h gates/gate.c gates/static.c gates/correctness.c \
	gates/fp64.c gates/perf.c gates/baseline.c

check_PROGRAMS += tests/unit/gates_test
tests_unit_gates_test_SOURCES = tests/unit/gates_test.c tests/tap.h
TESTS += tests/unit/gates_test

# the static gate (Python, standard library only) on its corpus of good and
# bad kernels; the corpus folders travel whole in the tarball (they hold no
# build output: the test's logs go next to run.sh)
TESTS += tests/static/run.sh tests/static/cheats.sh tests/static/recorded.sh tests/static/units.sh
EXTRA_DIST += tests/static/run.sh tests/static/cheats.sh tests/static/recorded.sh tests/static/units.sh tests/static/orig tests/static/good tests/static/bad tests/static/memcheck
