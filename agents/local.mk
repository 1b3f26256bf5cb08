## agents/local.mk: included by the top Makefile.am
include $(srcdir)/agents/llm.mk
