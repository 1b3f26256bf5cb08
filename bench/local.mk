## bench/local.mk: included by the top Makefile.am
## Benchmarks are built by `make` and run by hand (not by the tests):
##   top_builddir=$PWD bench/engine_bench
noinst_PROGRAMS += bench/engine_bench
bench_engine_bench_SOURCES = bench/engine_bench.c tests/fixture.h
EXTRA_DIST += bench/results bench/compare-runs bench/memory bench/overhead bench/cost
