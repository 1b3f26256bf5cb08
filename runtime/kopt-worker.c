/*
 * runtime/kopt-worker.c: the GPU worker.
 *
 * A C program that enables CUPTI's Activity API for kernels, then embeds
 * CPython, imports the `kopt` runtime package and serves the worker protocol
 * (runtime/PROTOCOL.md) on its stdin and stdout: one JSON request a line in,
 * one JSON reply a line out. Lines are checked with jansson on both sides of
 * the Python call, so a reply is always one well-formed JSON object.
 *
 * CUPTI is enabled before Py_Initialize so that every kernel torch launches is
 * recorded. Records arrive on a CUPTI thread: they are kept in C under a
 * mutex and never touch Python there. Python reads them through the built-in
 * module `_kopt_cupti` (take(), timestamp(), enable()).
 *
 * File descriptors: the protocol's stdout is moved to a private descriptor
 * and fd 1 is pointed at stderr, so that a print() in a user's model, or any
 * library writing to stdout, cannot corrupt the protocol.
 *
 * Sandbox: before CUPTI, CUDA or Python start, sandbox_enter_reading()
 * (runtime/sandbox.h) makes the worker's scratch folder and confines the
 * process and all it starts: Landlock denies writes outside the scratch
 * folder, the compile caches and /dev, and reads outside the system's
 * folders, the spec's and the Python install's (asked of that Python in a
 * child first: python_reads), hiding the user's home; a seccomp filter
 * denies socket() but AF_UNIX (CUDA's IPC). A candidate that gets past the static gate and
 * tries either fails with EACCES, which verify reports as its reason. The
 * hello says how the worker is confined ("sandbox"); where the kernel
 * lacks Landlock, one warning on stderr says so. KOPT_SANDBOX=off.
 *
 * Environment: KOPT_PYTHON (the interpreter whose site-packages to use: its
 * path is the embedded interpreter's program_name), KOPT_PYTHONPATH (where
 * the kopt package is; default: the source tree's runtime/python if it
 * exists, else the installed copy), KOPT_GUARD_LIB (gate 1's guarded
 * allocator, runtime/guard.c; default: kopt-guard.so beside the worker,
 * which its sandbox then lets it read). koptmake starts it with a scrubbed
 * environment (no API keys).
 *
 * A machine that cannot run the GPU path (no driver, no GPU, no torch or
 * triton in that Python) gets one line on stderr before the exit, that
 * koptmake shows alone: "kopt-worker: cannot start: WHAT: HOW".
 */
#define _GNU_SOURCE
#include <config.h>

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "counters.h"
#include "vendor.h"

#ifndef KOPT_SRC_PYTHONDIR
#define KOPT_SRC_PYTHONDIR ""
#endif
#ifndef KOPT_BUILDDIR
#define KOPT_BUILDDIR "/nonexistent"
#endif
#ifndef KOPT_PYTHONDIR
#define KOPT_PYTHONDIR ""
#endif

/* ---- CUPTI: kernel records kept in C ---- */

struct krec {
	char *name;          /* owned */
	uint64_t start, end; /* ns, CUPTI clock */
	uint32_t stream;
	uint32_t correlation;
	int32_t grid[3], block[3];
	uint16_t regs;
};

static struct {
	pthread_mutex_t lock;
	struct krec *recs; /* records not yet taken by Python */
	size_t n, cap;
	uint64_t dropped;  /* records CUPTI reported as dropped */
	int enabled;
	const char *init_error; /* why CUPTI could not start, or NULL */
} cupti = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0, NULL };

#define BUF_SIZE (8u << 20)

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, BUF_SIZE);
	*size = *buffer ? BUF_SIZE : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				      size_t valid)
{
	(void)ctx; (void)stream; (void)size;
	CUpti_Activity *rec = NULL;
	pthread_mutex_lock(&cupti.lock);
	while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
		if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
			continue;
		const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
		if (cupti.n == cupti.cap) {
			size_t c = cupti.cap ? cupti.cap * 2 : 4096;
			struct krec *r = realloc(cupti.recs, c * sizeof *r);
			if (!r) {
				cupti.dropped++;
				continue;
			}
			cupti.recs = r;
			cupti.cap = c;
		}
		struct krec *o = &cupti.recs[cupti.n++];
		o->name = strdup(k->name ? k->name : "?");
		o->start = k->start;
		o->end = k->end;
		o->stream = k->streamId;
		o->correlation = k->correlationId;
		o->grid[0] = k->gridX; o->grid[1] = k->gridY; o->grid[2] = k->gridZ;
		o->block[0] = k->blockX; o->block[1] = k->blockY; o->block[2] = k->blockZ;
		o->regs = k->registersPerThread;
	}
	size_t dropped = 0;
	if (cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) == CUPTI_SUCCESS)
		cupti.dropped += dropped;
	pthread_mutex_unlock(&cupti.lock);
	free(buffer);
}

static int cupti_start(void)
{
	const char *err = NULL;
	CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r == CUPTI_SUCCESS)
		r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	if (r != CUPTI_SUCCESS) {
		cuptiGetResultString(r, &err);
		cupti.init_error = err ? err : "unknown CUPTI error";
		return -1;
	}
	cupti.enabled = 1;
	return 0;
}

static void cupti_clear_locked(void)
{
	for (size_t i = 0; i < cupti.n; i++)
		free(cupti.recs[i].name);
	cupti.n = 0;
}

/* _kopt_cupti.take(): flush and return [(name, start, end, stream, corr, grid, block, regs)] */
static PyObject *py_take(PyObject *self, PyObject *args)
{
	(void)self; (void)args;
	Py_BEGIN_ALLOW_THREADS
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	Py_END_ALLOW_THREADS
	pthread_mutex_lock(&cupti.lock);
	PyObject *list = PyList_New((Py_ssize_t)cupti.n);
	for (size_t i = 0; list && i < cupti.n; i++) {
		const struct krec *k = &cupti.recs[i];
		PyObject *t = Py_BuildValue("(sKKII(iii)(iii)I)", k->name, (unsigned long long)k->start,
					    (unsigned long long)k->end, k->stream, k->correlation,
					    k->grid[0], k->grid[1], k->grid[2],
					    k->block[0], k->block[1], k->block[2], (unsigned)k->regs);
		if (!t) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	cupti_clear_locked();
	pthread_mutex_unlock(&cupti.lock);
	return list;
}

static PyObject *py_timestamp(PyObject *self, PyObject *args)
{
	(void)self; (void)args;
	uint64_t ts = 0;
	cuptiGetTimestamp(&ts);
	return PyLong_FromUnsignedLongLong(ts);
}

/* re-register and re-enable: torch.profiler takes CUPTI over and disables it */
static PyObject *py_enable(PyObject *self, PyObject *args)
{
	(void)self; (void)args;
	if (cupti_start() < 0) {
		PyErr_Format(PyExc_RuntimeError, "cupti: %s", cupti.init_error);
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *py_status(PyObject *self, PyObject *args)
{
	(void)self; (void)args;
	pthread_mutex_lock(&cupti.lock);
	unsigned long long dropped = cupti.dropped;
	pthread_mutex_unlock(&cupti.lock);
	return Py_BuildValue("{s:O,s:s,s:K,s:i}", "enabled", cupti.enabled ? Py_True : Py_False,
			     "error", cupti.init_error ? cupti.init_error : "", "dropped", dropped,
			     "api_version", (int)CUPTI_API_VERSION);
}

static PyMethodDef cupti_methods[] = {
	{ "take", py_take, METH_NOARGS, "flush CUPTI and return the kernel records since the last take" },
	{ "timestamp", py_timestamp, METH_NOARGS, "CUPTI's current timestamp in ns" },
	{ "enable", py_enable, METH_NOARGS, "re-register the buffers and re-enable kernel records" },
	{ "status", py_status, METH_NOARGS, "enabled, error, dropped records" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef cupti_module = {
	PyModuleDef_HEAD_INIT, "_kopt_cupti", "CUPTI kernel records kept by kopt-worker", -1,
	cupti_methods, NULL, NULL, NULL, NULL,
};

static PyObject *init_cupti_module(void)
{
	return PyModule_Create(&cupti_module);
}

/* ---- the protocol loop ---- */

static FILE *proto_out; /* the real stdout */

static void send_json(json_t *obj)
{
	char *s = json_dumps(obj, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (!s)
		s = strdup("{\"id\":null,\"ok\":false,\"error\":\"reply could not be encoded\",\"fatal\":true}");
	fputs(s, proto_out);
	fputc('\n', proto_out);
	fflush(proto_out);
	free(s);
}

static void send_error(json_t *id, const char *msg, const char *detail, int fatal)
{
	json_t *r = json_pack("{s:O?,s:b,s:s,s:s,s:b}", "id", id, "ok", 0, "error", msg,
			      "detail", detail ? detail : "", "fatal", fatal);
	send_json(r);
	json_decref(r);
}

/* formats the pending Python exception (last lines of the traceback) */
static char *py_error_text(void)
{
#if PY_VERSION_HEX >= 0x030C0000
	PyObject *exc = PyErr_GetRaisedException();
#else
	PyObject *type, *value, *trace;
	PyErr_Fetch(&type, &value, &trace);
	PyErr_NormalizeException(&type, &value, &trace);
	if (value && trace)
		PyException_SetTraceback(value, trace);
	Py_XDECREF(type);
	Py_XDECREF(trace);
	PyObject *exc = value;
#endif
	if (!exc)
		return strdup("unknown Python error");
	char *out = NULL;
	PyObject *tb = PyImport_ImportModule("traceback");
	PyObject *lines = tb ? PyObject_CallMethod(tb, "format_exception", "O", exc) : NULL;
	PyObject *empty = PyUnicode_FromString("");
	PyObject *joined = lines && empty ? PyUnicode_Join(empty, lines) : NULL;
	const char *s = joined ? PyUnicode_AsUTF8(joined) : NULL;
	if (!s) {
		PyErr_Clear();
		PyObject *str = PyObject_Str(exc);
		s = str ? PyUnicode_AsUTF8(str) : "unprintable Python error";
		out = strdup(s ? s : "unprintable Python error");
		Py_XDECREF(str);
	} else
		out = strdup(s);
	Py_XDECREF(joined);
	Py_XDECREF(empty);
	Py_XDECREF(lines);
	Py_XDECREF(tb);
	Py_DECREF(exc);
	return out;
}

static int serve(PyObject *handle)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		if (n == 0 || (n == 1 && line[0] == '\n'))
			continue;
		json_error_t jerr;
		json_t *req = json_loads(line, 0, &jerr);
		if (!req || !json_is_object(req)) {
			send_error(NULL, "request is not a JSON object", jerr.text, 0);
			json_decref(req);
			continue;
		}
		json_t *id = json_object_get(req, "id");
		if (!json_is_string(json_object_get(req, "op"))) {
			send_error(id, "request has no op", NULL, 0);
			json_decref(req);
			continue;
		}
		PyObject *reply = PyObject_CallFunction(handle, "s", line);
		const char *rs = reply && PyUnicode_Check(reply) ? PyUnicode_AsUTF8(reply) : NULL;
		json_t *rep = rs ? json_loads(rs, 0, &jerr) : NULL;
		if (!rep || !json_is_object(rep)) {
			char *detail = PyErr_Occurred() ? py_error_text() : strdup(rs ? rs : "");
			send_error(id, "the kopt runtime returned no valid reply", detail, 1);
			free(detail);
			json_decref(rep);
			Py_XDECREF(reply);
			json_decref(req);
			free(line);
			return 1;
		}
		json_object_set(rep, "id", id);
		send_json(rep);
		int fatal = json_is_true(json_object_get(rep, "fatal"));
		json_decref(rep);
		Py_DECREF(reply);
		json_decref(req);
		if (fatal) {
			free(line);
			return 3; /* the CUDA context is poisoned: leave, the engine starts another */
		}
	}
	free(line);
	return 0;
}

/* what the worker finds missing below Python: the driver, or a GPU it
 * sees; "" when both are there. libcuda is opened the way CUPTI and torch
 * open it; cuInit(0) says CUDA_ERROR_NO_DEVICE (100) on a machine without
 * a GPU. */
static const char *driver_missing(char *buf, size_t size)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(buf, size, "no NVIDIA driver (libcuda.so.1 is not found)");
		return buf;
	}
	int (*cu_init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
	int (*cu_count)(int *) = (int (*)(int *))dlsym(h, "cuDeviceGetCount");
	int n = 0, r = cu_init ? cu_init(0) : -1;
	if (r == 100 || (r == 0 && cu_count && cu_count(&n) == 0 && n == 0))
		snprintf(buf, size, "no NVIDIA GPU (the driver sees none)");
	else if (r != 0)
		snprintf(buf, size, "the NVIDIA driver does not start (cuInit: error %d)", r);
	else
		buf[0] = '\0';
	/* left open: torch opens the same library */
	return buf;
}

/*
 * CUDA's driver loads the nvidia_uvm module and makes /dev/nvidia-uvm on
 * its first use on a machine, through nvidia-modprobe, a setuid helper
 * that the sandbox's no_new_privs disarms: confined, cuInit then fails
 * ("Error 304: OS call failed") until some unconfined process has used
 * CUDA. So when the GPU's control node is there and that one is not, a
 * child outside the sandbox starts the driver once and exits; the worker
 * itself starts CUDA only confined, with no unconfined thread in it.
 * KOPT_SANDBOX_PREINIT=0 leaves it out.
 */
static void driver_nodes(void)
{
	const char *pre = getenv("KOPT_SANDBOX_PREINIT");
	if ((pre && strcmp(pre, "0") == 0) || access("/dev/nvidiactl", F_OK) != 0 ||
	    access("/dev/nvidia-uvm", F_OK) == 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
		int (*cu_init)(unsigned) = h ? (int (*)(unsigned))dlsym(h, "cuInit") : NULL;
		_exit(cu_init && cu_init(0) == 0 ? 0 : 1);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

/* kopt.preflight's sentence for what this machine lacks, or NULL when the
 * GPU path can run (or the check itself cannot: the import that follows
 * then says why) */
static char *preflight(const char *driver)
{
	PyObject *mod = PyImport_ImportModule("kopt.preflight");
	PyObject *r = mod ? PyObject_CallMethod(mod, "problem", "s", driver) : NULL;
	char *out = NULL;
	if (r && PyUnicode_Check(r))
		out = strdup(PyUnicode_AsUTF8(r));
	else if (!r && *driver)
		out = strdup(driver);
	PyErr_Clear();
	Py_XDECREF(r);
	Py_XDECREF(mod);
	return out;
}

static const char *pick_pythonpath(void);

/* what Python prints for python_reads: its prefixes, its C headers (Triton
 * compiles its launcher against them) and sys.path */
#define PY_PATHS "import sys, sysconfig\n" \
	"for p in [sys.prefix, sys.base_prefix, sys.exec_prefix, sysconfig.get_paths().get('include', '')] + sys.path:\n" \
	"    print(p)\n"

/*
 * The folders the worker's Python reads, for the sandbox (sandbox.h): the
 * folder above the interpreter's (as named, and as its link resolves),
 * the kopt package's, $KOPT_HELION_PATH's and what the interpreter itself
 * says (PY_PATHS: sys.path as this environment makes it, .pth files and
 * all), asked once in a child before anything is confined. NULL-terminated;
 * the process keeps it.
 */
static const char **python_reads(const char *py)
{
	size_t n = 0, cap = 64;
	const char **out = calloc(cap + 1, sizeof *out);
	char *dirs[2] = { strdup(py), realpath(py, NULL) };
	for (int i = 0; i < 2 && out; i++) {
		char *d = dirs[i], *slash;
		for (int up = 0; d && up < 2 && (slash = strrchr(d, '/')) && slash != d; up++)
			*slash = '\0';
		if (d && n < cap)
			out[n++] = d;
	}
	if (!out)
		return NULL;
	out[n++] = pick_pythonpath();
	const char *guard = getenv("KOPT_GUARD_LIB");
	if (guard && *guard)
		out[n++] = guard;
	const char *helion = getenv("KOPT_HELION_PATH");
	for (char *h = helion ? strdup(helion) : NULL, *save = NULL, *t = h ? strtok_r(h, ":", &save) : NULL; t && n < cap;
	     t = strtok_r(NULL, ":", &save))
		out[n++] = t;
	int pfd[2];
	if (pipe(pfd) < 0)
		return out;
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null >= 0)
			dup2(null, 0);
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execl(py, py, "-c", PY_PATHS, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	static char text[1 << 16];
	size_t len = 0;
	ssize_t r;
	while (pid > 0 && len < sizeof text - 1 && ((r = read(pfd[0], text + len, sizeof text - 1 - len)) > 0 ||
						    (r < 0 && errno == EINTR)))
		len += r > 0 ? (size_t)r : 0;
	close(pfd[0]);
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	text[len] = '\0';
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && n < cap; line = strtok_r(NULL, "\n", &save))
		if (line[0] == '/')
			out[n++] = line;
	return out;
}

/*
 * Where the kopt package is: $KOPT_PYTHONPATH; else, for the copy in the
 * build tree, the source tree's runtime/python; else the installed one.
 */
static const char *pick_pythonpath(void)
{
	const char *p = getenv("KOPT_PYTHONPATH");
	if (p && *p)
		return p;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		char *real = realpath(KOPT_BUILDDIR, NULL);
		int intree = real && strcmp(real, exe) == 0;
		free(real);
		if (intree)
			return KOPT_SRC_PYTHONDIR;
	}
	return KOPT_PYTHONDIR;
}

/*
 * The guarded allocator of gate 1's memcheck (runtime/guard.c), which the
 * memcheck's child loads: $KOPT_GUARD_LIB, else the copy beside this
 * program (its build folder, or where both are installed).
 */
static void guard_lib(void)
{
	const char *set = getenv("KOPT_GUARD_LIB");
	if (set && *set)
		return;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 32);
	if (n <= 0)
		return;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return;
	strcpy(slash + 1, "kopt-guard.so");
	if (access(exe, R_OK) == 0)
		setenv("KOPT_GUARD_LIB", exe, 1);
}

int main(int argc, char **argv)
{
	(void)argc; (void)argv;
	signal(SIGPIPE, SIG_IGN);
	int fd = dup(1);
	if (fd < 0 || dup2(2, 1) < 0) {
		perror("kopt-worker: dup");
		return 2;
	}
	proto_out = fdopen(fd, "w");
	if (!proto_out) {
		perror("kopt-worker: fdopen");
		return 2;
	}
	struct sandbox_state sb;
	driver_nodes();
	guard_lib();
	const char *py = getenv("KOPT_PYTHON");
	if (!py || !*py)
		py = KOPT_PYTHON;
	if (strchr(py, '/') && access(py, X_OK) != 0) {
		/* Python would start without it, and find no torch where it looked */
		fprintf(stderr, "kopt-worker: cannot start: no Python at '%s' (%s): set KOPT_PYTHON to a Python with "
			"torch >= 2.6 and triton\n", py, getenv("KOPT_PYTHON") && *getenv("KOPT_PYTHON") ?
			"KOPT_PYTHON names it" : "configure's PYTHON");
		fflush(NULL);
		_exit(2);
	}
	if (sandbox_enter_reading(&sb, python_reads(py)) < 0) {
		fprintf(stderr, "kopt-worker: cannot start the sandbox: %s\n", sb.note);
		return 2;
	}
	if (sb.note[0])
		fprintf(stderr, "kopt-worker: warning: %s\n", sb.note);
	setenv("PYTHONDONTWRITEBYTECODE", "1", 0); /* the sources' folders are read-only to it */

	int have_cupti = cupti_start() == 0;
	char dbuf[160];
	const char *driver = driver_missing(dbuf, sizeof dbuf);
	if (!have_cupti && !*driver) /* without a driver, the line below says so */
		fprintf(stderr, "kopt-worker: warning: CUPTI not enabled: %s\n", cupti.init_error);

	if (PyImport_AppendInittab("_kopt_cupti", init_cupti_module) < 0 ||
	    PyImport_AppendInittab("_kopt_vendor", kopt_init_vendor_module) < 0 ||
	    PyImport_AppendInittab("_kopt_counters", kopt_init_counters_module) < 0) {
		fprintf(stderr, "kopt-worker: cannot register the built-in modules\n");
		return 2;
	}
	PyConfig config;
	PyConfig_InitPythonConfig(&config);
	PyStatus st = PyConfig_SetBytesString(&config, &config.program_name, py);
	if (!PyStatus_Exception(st)) {
		char *wargv[] = { "kopt-worker", NULL };
		st = PyConfig_SetBytesArgv(&config, 1, wargv);
	}
	if (!PyStatus_Exception(st))
		st = Py_InitializeFromConfig(&config);
	PyConfig_Clear(&config);
	if (PyStatus_Exception(st)) {
		fprintf(stderr, "kopt-worker: cannot start Python (%s): %s\n", py, st.err_msg ? st.err_msg : "?");
		return 2;
	}

	PyObject *sys_path = PySys_GetObject("path");
	PyObject *dir = PyUnicode_FromString(pick_pythonpath());
	if (sys_path && dir)
		PyList_Insert(sys_path, 0, dir);
	Py_XDECREF(dir);

	char *missing = preflight(driver);
	if (missing) {
		fprintf(stderr, "kopt-worker: cannot start: %s\n", missing);
		free(missing);
		fflush(NULL);
		_exit(2);
	}

	int rc = 2;
	PyObject *mod = PyImport_ImportModule("kopt.worker");
	PyObject *hello = mod ? PyObject_CallMethod(mod, "hello", NULL) : NULL;
	/* the error of the import or of hello(), before another call clears it */
	char *e = PyErr_Occurred() ? py_error_text() : NULL;
	PyObject *handle = hello ? PyObject_GetAttrString(mod, "handle") : NULL;
	const char *hs = hello && PyUnicode_Check(hello) ? PyUnicode_AsUTF8(hello) : NULL;
	if (!e && (!hs || !handle))
		e = PyErr_Occurred() ? py_error_text() : NULL;
	if (!hs || !handle) {
		if (!e)
			e = strdup("kopt.worker.hello() returned no string");
		fprintf(stderr, "kopt-worker: cannot start the kopt runtime:\n%s\n", e);
	} else {
		json_t *h = json_loads(hs, 0, NULL);
		if (json_is_object(h)) {
			json_object_set_new(h, "sandbox", json_pack("{s:b, s:b, s:b, s:b, s:i, s:s, s:s}", "fs", sb.fs,
								   "net", sb.net, "proc", sb.proc, "caps_dropped", sb.caps,
								   "landlock_abi", sb.landlock_abi,
								   "scratch", sb.scratch, "how", sandbox_describe(&sb)));
			send_json(h);
		} else {
			fputs(hs, proto_out);
			fputc('\n', proto_out);
			fflush(proto_out);
		}
		json_decref(h);
		rc = serve(handle);
	}
	free(e);
	Py_XDECREF(handle);
	Py_XDECREF(hello);
	Py_XDECREF(mod);
	if (have_cupti)
		cuptiActivityFlushAll(0);
	/* torch's threads may still hold the interpreter; a worker exits without finalizing */
	fflush(NULL);
	_exit(rc);
}
