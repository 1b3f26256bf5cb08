## engine/local.mk: included by the top Makefile.am
libkopt_a_SOURCES += engine/engine.h engine/stub.c
