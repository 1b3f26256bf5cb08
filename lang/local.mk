## lang/local.mk: included by the top Makefile.am. The spec language
## (lexer, parser, checker, dump), its tests, fuzz target, benchmark and
## kopt(5).
libkopt_a_SOURCES += lang/lang.h lang/spec.h lang/fields.h lang/ast.h lang/load.h \
	lang/lexer.l lang/parser.y lang/ast.c lang/spec.c lang/fields.c lang/lang.c lang/smap.c \
	lang/eval.c lang/decl.c lang/glob.c lang/include.c lang/resolve.c lang/targets.c lang/paths.c lang/shape.c
BUILT_SOURCES += lang/parser.h
# configure's yacc is `bison -y`; the grammar uses bison's extensions on purpose
AM_YFLAGS += -Wno-yacc

# tests: unit, golden cases (and that they emit every diagnostic), kopt(5) examples
check_PROGRAMS += tests/unit/lang_test tests/unit/lists_test
tests_unit_lang_test_SOURCES = tests/unit/lang_test.c tests/tap.h
# every field of lang/fields.h's lists: dumped, keyed as flagged, sent, kopt(5)'s default
tests_unit_lists_test_SOURCES = tests/unit/lists_test.c tests/tap.h
TESTS += tests/unit/lang_test tests/unit/lists_test tests/golden/run-golden.sh \
	tests/golden/man-examples.sh
EXTRA_DIST += tests/golden/cases tests/golden/run-golden.sh \
	tests/golden/man-examples.sh tests/golden/valgrind.sh \
	tests/fuzz/build.sh tests/fuzz/fuzz_lang.c tests/fuzz/lang.dict tests/fuzz/corpus

# the parse benchmark: built with the tests, never run by them
check_PROGRAMS += bench/parse_bench
bench_parse_bench_SOURCES = bench/parse_bench.c

dist_man_MANS += man/kopt.5
if VALGRIND
TESTS += tests/golden/valgrind.sh
endif
# issue 38: a spec's paths stay in its folder, and no message shows a secret
TESTS += tests/e2e/spec-secrets.sh
EXTRA_DIST += tests/e2e/spec-secrets.sh
