## common/local.mk: included by the top Makefile.am
libkopt_a_SOURCES += common/http.c common/http.h
libkopt_a_SOURCES += common/nofollow.c common/nofollow.h
