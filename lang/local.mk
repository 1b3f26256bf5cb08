## lang/local.mk: included by the top Makefile.am. The spec language
## (lexer, parser, checker, dump), its tests, fuzz target, benchmark and
## kopt(5).
libkopt_a_SOURCES += lang/lang.h lang/spec.h lang/ast.h lang/ast.c \
	lang/lexer.l lang/parser.y lang/check.c lang/spec.c
BUILT_SOURCES += lang/parser.h
# configure's yacc is `bison -y`; the grammar uses bison's extensions on purpose
AM_YFLAGS += -Wno-yacc
