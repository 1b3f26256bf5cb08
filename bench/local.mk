## bench/local.mk: included by the top Makefile.am
