## man/local.mk: included by the top Makefile.am
dist_man_MANS += man/koptmake.1
