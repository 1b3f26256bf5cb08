## engine/local.mk: included by the top Makefile.am
libkopt_a_SOURCES += engine/engine.h engine/engine.c \
	engine/hash.h engine/hash.c \
	engine/cache.h engine/cache.c \
	engine/blog.h engine/blog.c \
	engine/dag.h engine/dag.c engine/rule.h \
	engine/explain.h engine/explain.c \
	engine/sched.h engine/sched.c engine/gpu_meter.h engine/gpu_meter.c engine/progress.h engine/progress.c \
	engine/queue.h engine/queue.c \
	engine/twins.h engine/twins.c engine/interrupt.h engine/interrupt.c \
	engine/worker_pool.h engine/worker_pool.c engine/tail.h engine/tail.c \
	engine/proc.h engine/proc.c \
	engine/witness.h engine/witness.c \
	engine/slurm.h engine/slurm.c \
	engine/remote.h engine/remote.c \
	engine/outdir.h engine/outdir.c \
	engine/seal.h engine/seal.c

# the simulated worker (a test double of kopt-worker), also used by bench/
noinst_PROGRAMS += tests/sim-worker
tests_sim_worker_SOURCES = tests/sim-worker.c runtime/sandbox.c runtime/sandbox.h
# and of the worker's Python, where it reads the simulated model files
EXTRA_DIST += tests/sim-python
tests_sim_worker_LDADD = $(JANSSON_LIBS) $(XXHASH_LIBS) $(LIBS)

check_PROGRAMS += tests/unit/engine_test
tests_unit_engine_test_SOURCES = tests/unit/engine_test.c tests/fixture.h tests/tap.h
TESTS += tests/unit/engine_test

check_PROGRAMS += tests/unit/engine_fail_test
tests_unit_engine_fail_test_SOURCES = tests/unit/engine_fail_test.c tests/fixture.h tests/tap.h
TESTS += tests/unit/engine_fail_test

check_PROGRAMS += tests/unit/engine_kill_test
tests_unit_engine_kill_test_SOURCES = tests/unit/engine_kill_test.c tests/fixture.h tests/tap.h
TESTS += tests/unit/engine_kill_test

check_PROGRAMS += tests/unit/witness_test
tests_unit_witness_test_SOURCES = tests/unit/witness_test.c tests/tap.h
TESTS += tests/unit/witness_test

check_PROGRAMS += tests/unit/dag_test
tests_unit_dag_test_SOURCES = tests/unit/dag_test.c tests/fixture.h tests/tap.h
TESTS += tests/unit/dag_test

check_PROGRAMS += tests/unit/engine_unit_test
tests_unit_engine_unit_test_SOURCES = tests/unit/engine_unit_test.c tests/tap.h
TESTS += tests/unit/engine_unit_test

TESTS += tests/e2e/baseline.sh tests/e2e/nullbuild.sh tests/e2e/cost.sh tests/e2e/engine.sh tests/e2e/race.sh tests/e2e/acceptance-sim.sh tests/e2e/acceptance-networks-sim.sh tests/e2e/affinity.sh tests/e2e/space.sh tests/e2e/graphcode.sh tests/e2e/parallel-capture.sh tests/e2e/untimed.sh
EXTRA_DIST += tests/e2e/baseline.sh tests/e2e/nullbuild.sh tests/e2e/cost.sh tests/e2e/engine.sh tests/e2e/race.sh tests/e2e/acceptance-sim.sh tests/e2e/acceptance-networks-sim.sh tests/e2e/acceptance-env.sh tests/e2e/affinity.sh tests/e2e/space.sh tests/e2e/graphcode.sh tests/e2e/sim-env.sh tests/e2e/parallel-capture.sh tests/e2e/untimed.sh

check_PROGRAMS += tests/unit/slurm_test
tests_unit_slurm_test_SOURCES = tests/unit/slurm_test.c tests/tap.h
TESTS += tests/unit/slurm_test
EXTRA_DIST += tests/fixtures/slurm
# against real services started by the tests: nginx (WebDAV PUT), a one-node Slurm
TESTS += tests/e2e/remote.sh tests/e2e/slurm.sh
EXTRA_DIST += tests/e2e/remote.sh tests/e2e/slurm.sh

check_PROGRAMS += tests/unit/seal_test
tests_unit_seal_test_SOURCES = tests/unit/seal_test.c tests/tap.h
TESTS += tests/unit/seal_test
# the seals on kopt-out/ that kopt.backend checks
TESTS += tests/e2e/seal.sh
EXTRA_DIST += tests/e2e/seal.sh
# no link followed below the cache folder
TESTS += tests/e2e/cache-links.sh
EXTRA_DIST += tests/e2e/cache-links.sh
# a config that kills the CUDA context costs its worker, not its step
TESTS += tests/e2e/screen-lost.sh
EXTRA_DIST += tests/e2e/screen-lost.sh
# the cache, the build log and the memory where no file can grow
check_PROGRAMS += tests/unit/full_disk_test
tests_unit_full_disk_test_SOURCES = tests/unit/full_disk_test.c tests/tap.h
TESTS += tests/unit/full_disk_test
# workers that break the protocol, each a few lines of shell
check_PROGRAMS += tests/unit/wpool_protocol_test
tests_unit_wpool_protocol_test_SOURCES = tests/unit/wpool_protocol_test.c tests/tap.h
TESTS += tests/unit/wpool_protocol_test
# the disk's errors that no full disk makes (fsync, fdatasync, renameat failing;
# a read interrupted by a signal or failing; fstat failing)
check_PROGRAMS += tests/unit/io_fail_test
tests_unit_io_fail_test_SOURCES = tests/unit/io_fail_test.c tests/tap.h
tests_unit_io_fail_test_LDFLAGS = -Wl,--wrap=fsync -Wl,--wrap=fdatasync -Wl,--wrap=renameat \
	-Wl,--wrap=read -Wl,--wrap=fstat
TESTS += tests/unit/io_fail_test
