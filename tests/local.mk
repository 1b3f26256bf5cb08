check_PROGRAMS += tests/unit/util_test
tests_unit_util_test_SOURCES = tests/unit/util_test.c tests/tap.h
TESTS += tests/unit/util_test
EXTRA_DIST += tests/run
TESTS += tests/runtime/deploy_table.sh tests/runtime/cachetrust.sh tests/runtime/verify_decisions.sh tests/runtime/rewrites.sh tests/runtime/worker.sh tests/runtime/stacks.sh tests/runtime/run.sh tests/runtime/imports.sh tests/runtime/helion_gate.sh tests/runtime/loader.sh tests/runtime/memcheck.sh tests/runtime/knobs.sh tests/runtime/transforms.sh tests/runtime/transforms_cpu.sh tests/runtime/kernels_load.sh tests/runtime/precompile.sh tests/runtime/verify_kept.sh tests/runtime/kernel_args.sh tests/runtime/own_frame.sh tests/runtime/attention_host.sh tests/runtime/counters.sh tests/runtime/compile_time.sh tests/runtime/gpulock.sh tests/runtime/tplthreads.sh tests/runtime/tplcut.sh tests/runtime/tunecache.sh tests/runtime/graphcopy.sh tests/runtime/products.sh tests/runtime/gate_names.sh
EXTRA_DIST += tests/runtime/deploy_table.sh tests/runtime/test_deploy_table.py tests/runtime/cachetrust.sh tests/runtime/test_cachetrust.py tests/runtime/verify_decisions.sh tests/runtime/test_verify_decisions.py tests/runtime/tap.py tests/runtime/rewrites.sh tests/runtime/test_rewrites.py tests/runtime/worker.sh tests/runtime/test_worker.py tests/runtime/stacks.sh tests/runtime/test_stacks.py tests/runtime/run.sh tests/runtime/test_runtime.py tests/runtime/imports.sh tests/runtime/test_imports.py tests/runtime/helion_gate.sh tests/runtime/test_helion_gate.py tests/fixtures/helion tests/runtime/knobs.sh tests/runtime/test_knobs.py tests/runtime/transforms.sh tests/runtime/test_transforms.py tests/runtime/transforms_cpu.sh tests/runtime/test_transforms_cpu.py tests/runtime/tlsim.py tests/fixtures/transforms tests/runtime/kernels_load.sh tests/runtime/test_kernels_load.py tests/runtime/precompile.sh tests/runtime/test_precompile.py tests/runtime/verify_kept.sh tests/runtime/test_verify_kept.py tests/runtime/torch-python.sh tests/runtime/kernel_args.sh tests/runtime/test_kernel_args.py tests/runtime/own_frame.sh tests/runtime/test_own_frame.py tests/runtime/attention_host.sh tests/runtime/test_attention_host.py tests/runtime/counters.sh tests/runtime/test_counters.py tests/runtime/compile_time.sh tests/runtime/test_compile_time.py tests/runtime/gpulock.sh tests/runtime/test_gpulock.py tests/runtime/tplthreads.sh tests/runtime/test_tplthreads.py tests/runtime/tplcut.sh tests/runtime/test_tplcut.py tests/runtime/tunecache.sh tests/runtime/test_tunecache.py tests/runtime/graphcopy.sh tests/runtime/test_graphcopy.py tests/runtime/products.sh tests/runtime/test_products.py tests/runtime/gate_names.sh tests/runtime/test_gate_names.py tests/runtime/standin.py tests/runtime/loader.sh tests/runtime/test_loader.py tests/fixtures/gpu \
	tests/runtime/memcheck.sh tests/runtime/test_memcheck.py tests/runtime/fake-compute-sanitizer tests/runtime/fake-guard-python \
	tests/gpu/run.sh tests/gpu/smoke.sh tests/gpu/smoke2.sh tests/gpu/cheats.sh tests/gpu/examples.sh \
	tests/gpu/wclient.py tests/gpu/knobs.py tests/gpu/transforms.py tests/gpu/tplthreads.py tests/gpu/tplcut.py tests/gpu/tunelock.py tests/gpu/compile_child.py tests/gpu/models/var_norm.py tests/gpu/models/long_norm.py tests/gpu/models/instance_norm.py tests/gpu/gate_reading.py tests/gpu/rewrite_cache.py tests/gpu/deploy_check.py tests/gpu/cheats.py tests/gpu/check_smoke.py tests/gpu/deploy.py tests/gpu/record-fixtures.sh \
	tests/gpu/acceptance.sh tests/gpu/cost.py tests/gpu/baseline.sh tests/gpu/aten_auto.sh tests/gpu/aten_auto.d tests/gpu/rewrites.sh tests/gpu/models/small_tconv.py tests/gpu/models/small_depthwise.py tests/gpu/models/small_avgpool3d.py tests/gpu/models/small_tconv_strided.py tests/gpu/models/small_conv3d.py tests/gpu/models/small_linear_sum.py tests/gpu/models/small_attention.py tests/gpu/models/small_conv_chansum.py tests/gpu/models/small_last_state.py tests/gpu/models/small_rowmax.py tests/gpu/static_shapes.py tests/gpu/graph_cache.py tests/gpu/deploy_keys.py tests/gpu/models/small_block_shapes.py tests/gpu/models/small_tconv_mean.py tests/gpu/attention.py tests/gpu/products.py tests/gpu/counters.py tests/gpu/space.sh tests/gpu/cudagraphs.py tests/gpu/manifest.py tests/gpu/record-modules.py \
	tests/gpu/models/small_softmax.py tests/gpu/models/small_convnet.py \
	tests/gpu/models/small_triton.py tests/gpu/models/bad_import.py \
	tests/gpu/sandbox.sh tests/gpu/models/escape_socket.py tests/gpu/models/escape_write.py tests/gpu/models/read_netrc.py \
	tests/gpu/screen_lost.sh tests/gpu/planted/sitecustomize.py \
	tests/gpu/helion.sh
# GPU tests: make check-gpu on a machine with an NVIDIA GPU (tests/gpu/run.sh)
noinst_PROGRAMS += tests/gpu/gate-decide
tests_gpu_gate_decide_SOURCES = tests/gpu/gate-decide.c
check-gpu: all tests/gpu/gate-decide
	GPU_JOBS="$(GPU_JOBS)" $(SHELL) $(top_srcdir)/tests/gpu/run.sh gpu-results $(GPU_TESTS)
.PHONY: check-gpu
# the examples end to end: build, null build, deployment, one-model change,
# budget (EXAMPLES_TARGET: another target of examples.kopt, such as
# networks, built and deployed alone)
check-gpu-examples: all
	$(SHELL) $(top_srcdir)/tests/gpu/acceptance.sh gpu-acceptance $(EXAMPLES_TARGET)
.PHONY: check-gpu-examples
check_PROGRAMS += tests/unit/interrupt_test
tests_unit_interrupt_test_SOURCES = tests/unit/interrupt_test.c tests/tap.h
TESTS += tests/unit/interrupt_test
check_PROGRAMS += tests/unit/svg_test
tests_unit_svg_test_SOURCES = tests/unit/svg_test.c tests/tap.h
TESTS += tests/unit/svg_test
CLEANFILES += svg_test_bars.svg svg_test_roofline.svg
EXTRA_DIST += tests/golden/svg
TESTS += tests/e2e/replay.sh
EXTRA_DIST += tests/e2e/replay.sh tests/replay-worker.py
TESTS += tests/kernelbench-spec.sh
EXTRA_DIST += tests/kernelbench-spec.sh bench/kernelbench.kopt
TESTS += tests/e2e/gpus.sh
EXTRA_DIST += tests/e2e/gpus.sh
TESTS += tests/gates-recorded.sh
EXTRA_DIST += tests/gates-recorded.sh
check_PROGRAMS += tests/unit/persist_test
tests_unit_persist_test_SOURCES = tests/unit/persist_test.c tests/tap.h
TESTS += tests/unit/persist_test tests/persist-static.sh
EXTRA_DIST += tests/persist-static.sh tests/fixtures/kernels tests/fixtures/network
check_PROGRAMS += tests/unit/pick_test
tests_unit_pick_test_SOURCES = tests/unit/pick_test.c tests/tap.h
TESTS += tests/unit/pick_test
# the implementation-space figures of a profile, each to the value
check_PROGRAMS += tests/unit/space_facts_test
tests_unit_space_facts_test_SOURCES = tests/unit/space_facts_test.c tests/tap.h
TESTS += tests/unit/space_facts_test
# gate 1's command, run in the test's own process (tools/mutate traces it there)
TESTS += tests/runtime/static_gate_main.sh
EXTRA_DIST += tests/runtime/static_gate_main.sh tests/runtime/test_static_gate_main.py
TESTS += tests/runtime/static_config.sh
EXTRA_DIST += tests/runtime/static_config.sh tests/runtime/test_static_config.py
# gate 1's buffers of a pointer (kopt.static_buffers) on small kernels
TESTS += tests/runtime/static_buffers.sh
EXTRA_DIST += tests/runtime/static_buffers.sh tests/runtime/test_static_buffers.py
# the attention rewrite's softmax guard on hand-built graphs
TESTS += tests/runtime/attention_guards.sh
EXTRA_DIST += tests/runtime/attention_guards.sh tests/runtime/test_attention_guards.py
# diagnostics of a spec whose file does not look like one: counted, not shown
TESTS += tests/golden/masked.sh
EXTRA_DIST += tests/golden/masked.sh
check_PROGRAMS += tests/unit/vendor_test
tests_unit_vendor_test_SOURCES = tests/unit/vendor_test.c tests/tap.h
TESTS += tests/unit/vendor_test
TESTS += tests/e2e/memory.sh tests/e2e/learn-once.sh tests/e2e/helion.sh tests/e2e/transforms.sh tests/e2e/space-default.sh
EXTRA_DIST += tests/e2e/memory.sh tests/e2e/learn-once.sh tests/e2e/helion.sh tests/e2e/transforms.sh tests/e2e/space-default.sh
check_PROGRAMS += tests/unit/issue24_outputs_test
tests_unit_issue24_outputs_test_SOURCES = tests/unit/issue24_outputs_test.c tests/fixture.h tests/tap.h
TESTS += tests/unit/issue24_outputs_test
check_PROGRAMS += tests/unit/modelcheck_test
tests_unit_modelcheck_test_SOURCES = tests/unit/modelcheck_test.c tests/fixture.h tests/tap.h
TESTS += tests/unit/modelcheck_test
check_PROGRAMS += tests/unit/issue24_memory_test
tests_unit_issue24_memory_test_SOURCES = tests/unit/issue24_memory_test.c tests/tap.h
TESTS += tests/unit/issue24_memory_test
check_PROGRAMS += tests/unit/sandbox_test
tests_unit_sandbox_test_SOURCES = tests/unit/sandbox_test.c tests/tap.h
TESTS += tests/unit/sandbox_test
TESTS += tests/e2e/issue24-workers.sh tests/e2e/issue24-input.sh
EXTRA_DIST += tests/e2e/issue24-workers.sh tests/e2e/issue24-input.sh
check_PROGRAMS += tests/unit/gain_test
tests_unit_gain_test_SOURCES = tests/unit/gain_test.c tests/tap.h
TESTS += tests/unit/gain_test
TESTS += tests/runtime/preflight.sh tests/e2e/no-gpu.sh
EXTRA_DIST += tests/runtime/preflight.sh tests/runtime/test_preflight.py tests/e2e/no-gpu.sh
TESTS += tests/runtime/package.sh
EXTRA_DIST += tests/runtime/package.sh tests/runtime/test_package.py
# the package's errors say what to do (issue 44)
TESTS += tests/runtime/friendly.sh
EXTRA_DIST += tests/runtime/friendly.sh tests/runtime/test_friendly.py
TESTS += tests/e2e/install.sh
EXTRA_DIST += tests/e2e/install.sh
TESTS += tests/e2e/measured.sh
EXTRA_DIST += tests/e2e/measured.sh
TESTS += tests/setup-debian.sh
EXTRA_DIST += tests/setup-debian.sh
TESTS += tests/help.sh
EXTRA_DIST += tests/help.sh
# the tarball holds what the tests read; one version; model files read
# with Python's parser before anything runs (issue 44)
TESTS += tests/gpu_parts.sh tests/e2e/bench-specs.sh
EXTRA_DIST += tests/gpu_parts.sh tests/e2e/bench-specs.sh
TESTS += tests/dist.sh tests/version.sh tests/e2e/modelcheck.sh tests/e2e/readme.sh
EXTRA_DIST += tests/dist.sh tests/version.sh tests/e2e/modelcheck.sh tests/e2e/readme.sh
TESTS += tests/e2e/cli.sh tests/e2e/tools-locked.sh tests/e2e/worker-replies.sh tests/e2e/stdfds.sh tests/e2e/modes.sh
EXTRA_DIST += tests/e2e/cli.sh tests/e2e/tools-locked.sh tests/e2e/worker-replies.sh tests/e2e/stdfds.sh tests/e2e/modes.sh
TESTS += tests/e2e/progress.sh tests/e2e/keep-going.sh tests/e2e/worker-log.sh tests/e2e/failure-reason.sh
EXTRA_DIST += tests/e2e/progress.sh tests/e2e/keep-going.sh tests/e2e/worker-log.sh tests/e2e/failure-reason.sh
# the size convention: files of at most 900 lines, functions of at most 120
# (issue 18), and the checker on files of known sizes
TESTS += tests/size.sh tests/size-self.sh
EXTRA_DIST += tests/size.sh tests/size-self.sh
# tools/mutate's own rules: its mutants' IDs, the equivalence arguments (issue 42)
TESTS += tests/tools/mutate_ops.sh
EXTRA_DIST += tests/tools/mutate_ops.sh tests/tools/test_mutate_ops.py tools/mutate_ops.py tools/mutate_cover.py
# the figures, keys, hot selection and memory on hand-computed cases (issue 25)
check_PROGRAMS += tests/unit/memory_test tests/unit/keys_test tests/unit/gates_edge_test
tests_unit_memory_test_SOURCES = tests/unit/memory_test.c tests/tap.h
tests_unit_keys_test_SOURCES = tests/unit/keys_test.c tests/tap.h
tests_unit_gates_edge_test_SOURCES = tests/unit/gates_edge_test.c tests/tap.h
TESTS += tests/unit/memory_test tests/unit/keys_test tests/unit/gates_edge_test tests/e2e/figures.sh tests/e2e/beyond-summary.sh tests/e2e/beyond-costs.sh tests/e2e/beyond-cache.sh tests/e2e/keys.sh tests/e2e/hot.sh tests/e2e/cache.sh tests/e2e/replan.sh
EXTRA_DIST += tests/e2e/figures.sh tests/e2e/beyond-summary.sh bench/beyond/summarize.py tests/e2e/beyond-costs.sh bench/beyond/costs.py tests/e2e/beyond-cache.sh bench/beyond/cache.sh tests/e2e/keys.sh tests/e2e/hot.sh tests/e2e/cache.sh tests/e2e/replan.sh tools/mutate
check_PROGRAMS += tests/unit/space_test tests/unit/groups_test
tests_unit_space_test_SOURCES = tests/unit/space_test.c tests/tap.h
tests_unit_groups_test_SOURCES = tests/unit/groups_test.c tests/tap.h
TESTS += tests/unit/space_test tests/unit/groups_test
# a network's kernels as a population: one chain per group, its winner on every member
TESTS += tests/e2e/groups.sh tests/e2e/cudagraphs.sh
EXTRA_DIST += tests/e2e/groups.sh tests/e2e/cudagraphs.sh
# bounds, leave-alone by the bound, the report's bound columns, roofline.svg
TESTS += tests/e2e/roofline.sh
EXTRA_DIST += tests/e2e/roofline.sh
# the profile's DRAM bytes (the GPU's counters) in the bound and the analysis
TESTS += tests/e2e/counters.sh
EXTRA_DIST += tests/e2e/counters.sh
# the graph cache's keys a profile's compile looked up, and what differs
TESTS += tests/e2e/graph_keys.sh tests/runtime/graphkeys.sh
EXTRA_DIST += tests/e2e/graph_keys.sh tests/runtime/graphkeys.sh tests/runtime/test_graphkeys.py
# bench/beyond/sample.sh: the benchmark's sampling rule, and named problems; bench/network/sample.sh: the level-3 rule and its parts (ONLY)
TESTS += tests/e2e/beyond-sample.sh
EXTRA_DIST += tests/e2e/beyond-sample.sh bench/beyond/sample.sh bench/network/sample.sh
# bench/beyond/run.sh: a slice's work folder, fresh for a part's first slice, resumed from what .device carries
TESTS += tests/e2e/beyond-run.sh
EXTRA_DIST += tests/e2e/beyond-run.sh bench/beyond/run.sh
check_PROGRAMS += tests/unit/wpool_test
tests_unit_wpool_test_SOURCES = tests/unit/wpool_test.c tests/tap.h
TESTS += tests/unit/wpool_test
# what the real kopt-worker may read, on the CPU (runtime/sandbox.c)
TESTS += tests/runtime/worker_reads.sh
EXTRA_DIST += tests/runtime/worker_reads.sh
# a model served at several shapes (issue 40): the pipeline with the
# simulated worker, and kopt.backend's dispatch by shape
TESTS += tests/e2e/shapes.sh tests/runtime/deploy_shapes.sh tests/unit/shapes_test
check_PROGRAMS += tests/unit/shapes_test
tests_unit_shapes_test_SOURCES = tests/unit/shapes_test.c tests/tap.h
EXTRA_DIST += tests/e2e/shapes.sh tests/runtime/deploy_shapes.sh tests/runtime/test_deploy_shapes.py
# every fact written in both languages, or several times in one, against
# its one source, and each check failing when one copy changes alone
# (issue 41)
TESTS += tests/lists.sh tests/lists-self.sh
check_PROGRAMS += tests/unit/lists_dump
tests_unit_lists_dump_SOURCES = tests/unit/lists_dump.c
EXTRA_DIST += tests/lists.py tests/lists.sh tests/lists-self.sh
# DESIGN.md's layout names every file of the repository (issue 41)
TESTS += tests/layout.sh tests/layout-self.sh
EXTRA_DIST += tests/layout.py tests/layout.sh tests/layout-self.sh
# whole builds of examples/ and tests/golden/sim-cases/ with the simulated
# worker, against their recorded logs, steps, reports and outputs
TESTS += tests/golden/sim-build.sh
EXTRA_DIST += tests/golden/sim-build.sh tests/golden/sim tests/golden/sim-cases
# the guarded allocator's layout, over a test double of the driver
check_PROGRAMS += tests/unit/guard_test tests/fake-libcuda.so
tests_unit_guard_test_SOURCES = tests/unit/guard_test.c tests/tap.h
tests_unit_guard_test_LDADD = $(DL_LIBS)
tests_fake_libcuda_so_SOURCES = tests/fake-libcuda.c
tests_fake_libcuda_so_CFLAGS = -fPIC
tests_fake_libcuda_so_LDFLAGS = -shared
TESTS += tests/unit/guard_test
