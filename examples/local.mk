## examples/local.mk: included by the top Makefile.am
