## runtime/local.mk: the GPU worker (built when configure finds embeddable
## Python and CUPTI) and the kopt Python package.

# the kopt package goes where configure's Python looks (pythondir: see
# configure's summary), with its dist-info (version, the gpu extra, the
# torch_dynamo_backends entry point) written by the package's own build
# backend, the one `pip install runtime/python` uses
if HAVE_PYTHON
koptdir = $(pythondir)/kopt
kopt_PYTHON = $(KOPT_PY_FILES)
KOPT_BUILD = $(PYTHON) $(srcdir)/runtime/python/_build/kopt_build.py
else
EXTRA_DIST += $(KOPT_PY_FILES)
KOPT_BUILD = :
endif
install-data-hook: install-kopt-metadata
install-kopt-metadata:
	$(KOPT_BUILD) install-metadata "$(DESTDIR)$(pythondir)" >/dev/null
uninstall-hook: uninstall-kopt-metadata
uninstall-kopt-metadata:
	$(KOPT_BUILD) uninstall-metadata "$(DESTDIR)$(pythondir)"
.PHONY: install-kopt-metadata uninstall-kopt-metadata
EXTRA_DIST += runtime/python/pyproject.toml runtime/python/_build/kopt_build.py
KOPT_PY_FILES = \
	runtime/python/kopt/__init__.py \
	runtime/python/kopt/attention.py \
	runtime/python/kopt/cachetrust.py \
	runtime/python/kopt/preflight.py \
	runtime/python/kopt/worker.py \
	runtime/python/kopt/loader.py \
	runtime/python/kopt/state.py \
	runtime/python/kopt/screen.py \
	runtime/python/kopt/static_config.py \
	runtime/python/kopt/precompile.py \
	runtime/python/kopt/stacks.py \
	runtime/python/kopt/errors.py \
	runtime/python/kopt/seal.py \
	runtime/python/kopt/helion.py \
	runtime/python/kopt/rewrites.py \
	runtime/python/kopt/rewrite_ops.py \
	runtime/python/kopt/rewrite_graph.py \
	runtime/python/kopt/rewrite_fold.py \
	runtime/python/kopt/rewrite_slice.py \
	runtime/python/kopt/rewrite_attention.py \
	runtime/python/kopt/rewrite_products.py \
	runtime/python/kopt/products.py \
	runtime/python/kopt/oplib.py \
	runtime/python/kopt/inductor.py \
	runtime/python/kopt/compile_time.py \
	runtime/python/kopt/gpulock.py \
	runtime/python/kopt/tplcut.py \
	runtime/python/kopt/tplthreads.py \
	runtime/python/kopt/tunecache.py \
	runtime/python/kopt/graphcopy.py \
	runtime/python/kopt/precision.py \
	runtime/python/kopt/graphkeys.py \
	runtime/python/kopt/facts.py \
	runtime/python/kopt/measure.py \
	runtime/python/kopt/kernels.py \
	runtime/python/kopt/knobs.py \
	runtime/python/kopt/transforms.py \
	runtime/python/kopt/records.py \
	runtime/python/kopt/verify.py \
	runtime/python/kopt/gate_rules.py \
	runtime/python/kopt/deploy.py \
	runtime/python/kopt/vendor.py \
	runtime/python/kopt/vendor_plan.py \
	runtime/python/kopt/static_gate.py \
	runtime/python/kopt/static_lists.py \
	runtime/python/kopt/static_text.py \
	runtime/python/kopt/static_scope.py \
	runtime/python/kopt/static_limits.py \
	runtime/python/kopt/static_bounds.py \
	runtime/python/kopt/static_forms.py \
	runtime/python/kopt/static_proofs.py \
	runtime/python/kopt/static_buffers.py \
	runtime/python/kopt/static_checker.py \
	runtime/python/kopt/memcheck.py \
	runtime/python/kopt/memcheck_child.py \
	runtime/python/kopt/problem.py
EXTRA_DIST += runtime/PROTOCOL.md runtime/cshim/string
# the worker's sandbox: the engine uses its environment list
libkopt_a_SOURCES += runtime/sandbox.c runtime/sandbox.h

if BUILD_WORKER
pkglibexec_PROGRAMS += kopt-worker
endif
kopt_worker_SOURCES = runtime/kopt-worker.c runtime/vendor.c runtime/vendor.h runtime/counters.c runtime/counters.h \
	runtime/sandbox.c runtime/sandbox.h
kopt_worker_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/runtime/cshim $(PYTHON_EMBED_CFLAGS) $(CUPTI_CFLAGS) \
	-DKOPT_SRC_PYTHONDIR='"$(abs_top_srcdir)/runtime/python"' -DKOPT_BUILDDIR='"$(abs_top_builddir)"'
kopt_worker_CFLAGS = $(SAN_CFLAGS) -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes
kopt_worker_LDADD = $(JANSSON_LIBS) $(CUPTI_LIBS) $(PYTHON_EMBED_LIBS) $(DL_LIBS) -lpthread
# the guarded allocator of gate 1's memcheck (runtime/guard.c): a shared
# library that torch loads in the memcheck's child; it reaches the driver
# through dlopen, so it builds (and tests/unit/guard_test runs) without CUDA
pkglibexec_PROGRAMS += kopt-guard.so
kopt_guard_so_SOURCES = runtime/guard.c
kopt_guard_so_CFLAGS = $(SAN_CFLAGS) -fPIC -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes
kopt_guard_so_LDFLAGS = -shared
kopt_guard_so_LDADD = $(DL_LIBS) -lpthread
