## gates/local.mk: included by the top Makefile.am
