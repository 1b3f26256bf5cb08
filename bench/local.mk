## bench/local.mk: included by the top Makefile.am
## Benchmarks are built by `make` and run by hand (not by the tests):
##   top_builddir=$PWD bench/engine_bench
noinst_PROGRAMS += bench/engine_bench
bench_engine_bench_SOURCES = bench/engine_bench.c tests/fixture.h
# the recipes travel; bench/results/ (measured runs, indexed in its
# README.md) is data and stays in the repository, out of the tarball
EXTRA_DIST += bench/compare-runs bench/memory bench/overhead bench/cost bench/scale bench/shapes bench/beyond bench/network
