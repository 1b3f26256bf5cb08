/*
 * runtime/counters.c: the _kopt_counters module of kopt-worker, what a
 * kernel really moves, from the GPU's performance counters.
 *
 * A profile row's "bytes" are its arguments' sizes: an upper bound on the
 * traffic of a kernel that reads part of a buffer, and a lower one for a
 * kernel that reads its input twice. The analyst needs the bytes that went
 * to and from DRAM. collect(fn, metrics, device[, max_ranges]) runs fn once
 * under CUPTI's range profiler, one range per kernel launch
 * (CUPTI_AutoRange) and every pass the metrics need replayed by CUPTI
 * inside each launch (CUPTI_KernelReplay), and returns each launch's
 * range name and metric values in launch order. CUPTI names automatic
 * ranges by their number ("0", "1", ...): the caller knows the kernels.
 *
 * The kernel records of the Activity API (kopt-worker.c) are switched off
 * for the collection and on again after it: the two do not run together,
 * and a replayed launch is not a timing. The caller drains the records of
 * the collection's launches.
 *
 * Built without CUPTI's profiler headers, collect() says so.
 */
#include <config.h>

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"

#if defined(HAVE_CUPTI_RANGE_PROFILER_H)
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

/* what a collection needs that depends only on the device and the
 * metrics: the host object (it evaluates the counters into metrics) and
 * the config image (which counters, in how many passes). Built once and
 * kept for the next collection with the same device and metrics. */
static struct plan {
	int device;
	char *metrics; /* the names, each followed by a newline */
	CUpti_Profiler_Host_Object *host;
	uint8_t *avail, *config;
	size_t config_size, passes;
} plan = { -1, NULL, NULL, NULL, NULL, 0, 0 };

/* one collection's CUPTI objects, released in reverse */
struct session {
	CUcontext ctx;
	CUpti_RangeProfiler_Object *prof;
	uint8_t *data;
	size_t data_size;
	int started;
};

/* sets the Python error for a failed CUPTI call; 0 on success */
static int failed(CUptiResult r, const char *what)
{
	if (r == CUPTI_SUCCESS)
		return 0;
	const char *s = NULL;
	cuptiGetResultString(r, &s);
	PyErr_Format(PyExc_RuntimeError, "counters: %s: %s", what, s ? s : "unknown CUPTI error");
	return -1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the calling thread's CUDA context, from the driver torch has loaded */
static CUcontext current_context(void)
{
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!cuda)
		return NULL;
	CUresult (*get)(CUcontext *) = (CUresult(*)(CUcontext *))dlsym(cuda, "cuCtxGetCurrent");
	CUcontext ctx = NULL;
	if (!get || get(&ctx) != CUDA_SUCCESS)
		ctx = NULL;
	dlclose(cuda);
	return ctx;
}

static void plan_drop(void)
{
	if (plan.host) {
		CUpti_Profiler_Host_Deinitialize_Params d = { CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL,
							      plan.host };
		cuptiProfilerHostDeinitialize(&d);
	}
	free(plan.metrics);
	free(plan.avail);
	free(plan.config);
	plan = (struct plan){ -1, NULL, NULL, NULL, NULL, 0, 0 };
}

/* the plan for these metrics on this device, the kept one where it is theirs */
static int plan_get(CUcontext ctx, const char **metrics, size_t n, int device)
{
	size_t len = 1;
	for (size_t i = 0; i < n; i++)
		len += strlen(metrics[i]) + 1;
	char *key = malloc(len);
	if (!key)
		return PyErr_NoMemory(), -1;
	key[0] = '\0';
	for (size_t i = 0; i < n; i++)
		strcat(strcat(key, metrics[i]), "\n");
	if (plan.host && plan.device == device && strcmp(plan.metrics, key) == 0) {
		free(key);
		return 0;
	}
	plan_drop();
	plan.device = device;
	plan.metrics = key;

	CUpti_Device_GetChipName_Params chip = { CUpti_Device_GetChipName_Params_STRUCT_SIZE, NULL,
						 (size_t)device, NULL };
	if (failed(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName"))
		goto fail;
	CUpti_Profiler_GetCounterAvailability_Params av = { CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
							    NULL, ctx, 0, NULL };
	if (failed(cuptiProfilerGetCounterAvailability(&av), "cuptiProfilerGetCounterAvailability"))
		goto fail;
	if (!(plan.avail = malloc(av.counterAvailabilityImageSize ? av.counterAvailabilityImageSize : 1))) {
		PyErr_NoMemory();
		goto fail;
	}
	av.pCounterAvailabilityImage = plan.avail;
	if (failed(cuptiProfilerGetCounterAvailability(&av), "cuptiProfilerGetCounterAvailability"))
		goto fail;

	CUpti_Profiler_Host_Initialize_Params hi = { CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE, NULL,
						     CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip.pChipName, plan.avail,
						     NULL };
	if (failed(cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize"))
		goto fail;
	plan.host = hi.pHostObject;
	CUpti_Profiler_Host_ConfigAddMetrics_Params add = { CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
							    NULL, plan.host, metrics, n };
	if (failed(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics (a metric this GPU lacks?)"))
		goto fail;
	CUpti_Profiler_Host_GetConfigImageSize_Params cs = {
		CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE, NULL, plan.host, 0
	};
	if (failed(cuptiProfilerHostGetConfigImageSize(&cs), "cuptiProfilerHostGetConfigImageSize"))
		goto fail;
	plan.config_size = cs.configImageSize;
	if (!(plan.config = malloc(plan.config_size ? plan.config_size : 1))) {
		PyErr_NoMemory();
		goto fail;
	}
	CUpti_Profiler_Host_GetConfigImage_Params ci = { CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE, NULL,
							 plan.host, plan.config_size, plan.config };
	if (failed(cuptiProfilerHostGetConfigImage(&ci), "cuptiProfilerHostGetConfigImage"))
		goto fail;
	CUpti_Profiler_Host_GetNumOfPasses_Params np = { CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE, NULL,
							 plan.config_size, plan.config, 0 };
	if (failed(cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses"))
		goto fail;
	plan.passes = np.numOfPasses;
	return 0;
fail:
	plan_drop();
	return -1;
}

static int session_open(struct session *s, const char **metrics, size_t n, int device, size_t max_ranges)
{
	static int initialized;
	if (!initialized) {
		CUpti_Profiler_Initialize_Params p = { CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL };
		if (failed(cuptiProfilerInitialize(&p), "cuptiProfilerInitialize"))
			return -1;
		initialized = 1;
	}
	if (!(s->ctx = current_context())) {
		PyErr_SetString(PyExc_RuntimeError, "counters: no current CUDA context (run a CUDA call first)");
		return -1;
	}
	if (plan_get(s->ctx, metrics, n, device) < 0)
		return -1;

	CUpti_RangeProfiler_Enable_Params en = { CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, NULL, s->ctx, NULL };
	if (failed(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable"))
		return -1;
	s->prof = en.pRangeProfilerObject;
	CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
		CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE, NULL, s->prof, metrics, n, max_ranges,
		(uint32_t)max_ranges, 0
	};
	if (failed(cuptiRangeProfilerGetCounterDataSize(&ds), "cuptiRangeProfilerGetCounterDataSize"))
		return -1;
	s->data_size = ds.counterDataSize;
	if (!(s->data = malloc(s->data_size ? s->data_size : 1)))
		return PyErr_NoMemory(), -1;
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params di = {
		CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE, NULL, s->prof, s->data_size, s->data
	};
	if (failed(cuptiRangeProfilerCounterDataImageInitialize(&di), "cuptiRangeProfilerCounterDataImageInitialize"))
		return -1;
	CUpti_RangeProfiler_SetConfig_Params sc = { CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE,
						    NULL,
						    s->prof,
						    plan.config_size,
						    plan.config,
						    s->data_size,
						    s->data,
						    CUPTI_AutoRange,
						    CUPTI_KernelReplay,
						    max_ranges,
						    1,
						    1,
						    0,
						    1 };
	return failed(cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");
}

/* stops a started profiler and decodes its ranges; dropped gets the
 * ranges the counter data had no room for */
static int session_stop(struct session *s, size_t *dropped)
{
	s->started = 0;
	CUpti_RangeProfiler_Stop_Params st = { CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE, NULL, s->prof, 0, 0, 0 };
	if (failed(cuptiRangeProfilerStop(&st), "cuptiRangeProfilerStop"))
		return -1;
	CUpti_RangeProfiler_DecodeData_Params dd = { CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE, NULL,
						     s->prof, 0 };
	if (failed(cuptiRangeProfilerDecodeData(&dd), "cuptiRangeProfilerDecodeData"))
		return -1;
	*dropped = dd.numOfRangeDropped;
	return 0;
}

static void session_close(struct session *s)
{
	if (s->started) {
		CUpti_RangeProfiler_Stop_Params st = { CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE, NULL, s->prof, 0, 0, 0 };
		cuptiRangeProfilerStop(&st);
	}
	if (s->prof) {
		CUpti_RangeProfiler_Disable_Params d = { CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL, s->prof };
		cuptiRangeProfilerDisable(&d);
	}
	free(s->data);
}

/* [(range name, [value per metric]), ...] of the decoded ranges */
static PyObject *ranges(struct session *s, const char **metrics, size_t n)
{
	CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
		CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE, NULL, s->data, s->data_size, 0
	};
	if (failed(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo"))
		return NULL;
	double *v = calloc(n ? n : 1, sizeof *v);
	PyObject *out = PyList_New(0);
	if (!v || !out)
		goto fail;
	for (size_t i = 0; i < info.numTotalRanges; i++) {
		CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {
			CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE, NULL, s->data, s->data_size, i,
			"/", NULL
		};
		if (failed(cuptiRangeProfilerCounterDataGetRangeInfo(&ri), "cuptiRangeProfilerCounterDataGetRangeInfo"))
			goto fail;
		CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
			CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE, NULL, plan.host, s->data, s->data_size, i,
			metrics, n, v
		};
		if (failed(cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues"))
			goto fail;
		PyObject *vals = PyList_New((Py_ssize_t)n);
		for (size_t m = 0; vals && m < n; m++)
			PyList_SET_ITEM(vals, (Py_ssize_t)m, PyFloat_FromDouble(v[m]));
		PyObject *row = vals ? Py_BuildValue("(sN)", ri.rangeName ? ri.rangeName : "", vals) : NULL;
		if (!row || PyList_Append(out, row) < 0) {
			Py_XDECREF(row);
			goto fail;
		}
		Py_DECREF(row);
	}
	free(v);
	return out;
fail:
	free(v);
	Py_XDECREF(out);
	return NULL;
}

/* collect(fn, metrics, device, max_ranges=4096) -> {"ranges": [(name, [values])], "passes": n, "dropped": n} */
static PyObject *py_collect(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *fn, *names;
	int device;
	Py_ssize_t max_ranges = 4096;
	if (!PyArg_ParseTuple(args, "OOi|n", &fn, &names, &device, &max_ranges))
		return NULL;
	PyObject *seq = PySequence_Fast(names, "counters: metrics must be a sequence of names");
	if (!seq)
		return NULL;
	size_t n = (size_t)PySequence_Fast_GET_SIZE(seq);
	if (n == 0 || max_ranges < 1) {
		Py_DECREF(seq);
		PyErr_SetString(PyExc_ValueError, "counters: at least one metric and one range");
		return NULL;
	}
	const char **metrics = calloc(n, sizeof *metrics);
	if (!metrics) {
		Py_DECREF(seq);
		return PyErr_NoMemory();
	}
	for (size_t i = 0; i < n; i++)
		if (!(metrics[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i))))
			goto early;

	struct session s = { 0 };
	PyObject *result = NULL, *list = NULL;
	size_t dropped = 0;
	double t0 = now_s(), t1 = t0, t2 = t0;
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	if (session_open(&s, metrics, n, device, (size_t)max_ranges) < 0)
		goto out;
	CUpti_RangeProfiler_Start_Params st = { CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL, s.prof };
	if (failed(cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart"))
		goto out;
	s.started = 1;
	t1 = now_s();
	PyObject *r = PyObject_CallNoArgs(fn);
	if (!r)
		goto out; /* fn's own error; session_close stops the profiler */
	Py_DECREF(r);
	t2 = now_s();
	if (session_stop(&s, &dropped) < 0 || !(list = ranges(&s, metrics, n)))
		goto out;
	result = Py_BuildValue("{s:N,s:n,s:n,s:d,s:d,s:d}", "ranges", list, "passes", (Py_ssize_t)plan.passes, "dropped",
			       (Py_ssize_t)dropped, "setup_s", t1 - t0, "run_s", t2 - t1, "decode_s", now_s() - t2);
out:
	session_close(&s);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	free(metrics);
	Py_DECREF(seq);
	return result;
early:
	free(metrics);
	Py_DECREF(seq);
	return NULL;
}
#else
static PyObject *py_collect(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	PyErr_SetString(PyExc_RuntimeError, "counters: kopt-worker was built without CUPTI's range profiler "
					    "(cupti_range_profiler.h, CUDA 12.6 or later)");
	return NULL;
}
#endif

static PyMethodDef counters_methods[] = {
	{ "collect", py_collect, METH_VARARGS,
	  "collect(fn, metrics, device, max_ranges=4096): run fn once under CUPTI's range profiler, one range per "
	  "kernel launch; {'ranges': [(range name, [value per metric])], 'passes': n, 'dropped': n, 'setup_s', "
	  "'run_s', 'decode_s'}" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef counters_module = {
	PyModuleDef_HEAD_INIT, "_kopt_counters", "GPU performance counters per kernel launch (CUPTI range profiler)",
	-1, counters_methods, NULL, NULL, NULL, NULL,
};

PyObject *kopt_init_counters_module(void)
{
	return PyModule_Create(&counters_module);
}
