## agents/local.mk: included by the top Makefile.am
libkopt_a_SOURCES += agents/agent.h agents/agent.c agents/builtin/configs.c
include $(srcdir)/agents/llm.mk
