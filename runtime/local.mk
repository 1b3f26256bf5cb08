## runtime/local.mk: the GPU worker (built when configure finds embeddable
## Python and CUPTI) and the kopt Python package.

koptpythondir = $(pkgdatadir)/python/kopt
dist_koptpython_DATA = $(KOPT_PY_FILES)
KOPT_PY_FILES = \
	runtime/python/kopt/__init__.py \
	runtime/python/kopt/preflight.py \
	runtime/python/kopt/worker.py \
	runtime/python/kopt/loader.py \
	runtime/python/kopt/state.py \
	runtime/python/kopt/screen.py \
	runtime/python/kopt/inductor.py \
	runtime/python/kopt/measure.py \
	runtime/python/kopt/kernels.py \
	runtime/python/kopt/records.py \
	runtime/python/kopt/verify.py \
	runtime/python/kopt/deploy.py \
	runtime/python/kopt/vendor.py \
	runtime/python/kopt/vendor_plan.py \
	runtime/python/kopt/static_gate.py \
	runtime/python/kopt/memcheck.py
EXTRA_DIST += runtime/PROTOCOL.md
# the worker's sandbox: the engine uses its environment list
libkopt_a_SOURCES += runtime/sandbox.c runtime/sandbox.h

if BUILD_WORKER
pkglibexec_PROGRAMS += kopt-worker
endif
kopt_worker_SOURCES = runtime/kopt-worker.c runtime/vendor.c runtime/vendor.h runtime/sandbox.c runtime/sandbox.h
kopt_worker_CPPFLAGS = $(AM_CPPFLAGS) $(PYTHON_EMBED_CFLAGS) $(CUPTI_CFLAGS) \
	-DKOPT_SRC_PYTHONDIR='"$(abs_top_srcdir)/runtime/python"' -DKOPT_BUILDDIR='"$(abs_top_builddir)"'
kopt_worker_CFLAGS = $(SAN_CFLAGS) -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes
kopt_worker_LDADD = $(JANSSON_LIBS) $(CUPTI_LIBS) $(PYTHON_EMBED_LIBS) $(DL_LIBS) -lpthread
