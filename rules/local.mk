## rules/local.mk: included by the top Makefile.am
libkopt_a_SOURCES += rules/svg.h rules/svg.c
