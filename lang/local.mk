## lang/local.mk: included by the top Makefile.am
libkopt_a_SOURCES += lang/lang.h lang/spec.h lang/stub.c
