/*
 * runtime/vendor.c: the _kopt_vendor module of kopt-worker, the vendor
 * libraries' own view of a GEMM or a convolution.
 *
 * For each GEMM and convolution in a profile the analyst wants to know
 * whether the vendor call torch made leaves time on the table. This module
 * asks the libraries themselves, through their C APIs: cuBLASLt's
 * heuristic (cublasLtMatmulAlgoGetHeuristic) and cuDNN's
 * (cudnnGetConvolutionForwardAlgorithm_v7) for their ranked algorithms at
 * one shape, and runs any one of them on caller-owned buffers. Buffers,
 * streams and timing stay on the Python side (torch tensors, CUPTI), so the
 * vendor algorithms are timed exactly like everything else.
 *
 * The libraries are not linked: they are opened at first use, preferring
 * the copies torch has already loaded (RTLD_NOLOAD), so the heuristics are
 * those of the library versions the model really runs, and the process
 * holds one copy of each. Built without the headers, every call says so.
 */
#include <config.h>

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "vendor.h"

/* the vendor headers are not strict-prototype clean */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#if defined(HAVE_CUBLASLT_H)
#include <cublasLt.h>
#endif
#if defined(HAVE_CUDNN_H)
#include <cudnn.h>
#endif
#pragma GCC diagnostic pop

#if defined(HAVE_CUBLASLT_H) || defined(HAVE_CUDNN_H)
/* opens a library by its sonames, torch's loaded copy first */
static void *open_lib(const char *const *names, const char **which)
{
	for (int pass = 0; pass < 2; pass++)
		for (const char *const *n = names; *n; n++) {
			void *h = dlopen(*n, RTLD_LAZY | RTLD_LOCAL | (pass == 0 ? RTLD_NOLOAD : 0));
			if (h) {
				*which = *n;
				return h;
			}
		}
	return NULL;
}

static PyObject *fail(const char *what, const char *lib, int status)
{
	PyErr_Format(PyExc_RuntimeError, "%s: %s returned status %d", lib, what, status);
	return NULL;
}

/* reads an int or a bool from a dict of arguments */
static int get_long(PyObject *d, const char *key, long long *out, long long dflt)
{
	PyObject *v = PyDict_GetItemString(d, key); /* borrowed */
	if (!v) {
		*out = dflt;
		return 0;
	}
	*out = PyLong_AsLongLong(v);
	return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

static const char *get_str(PyObject *d, const char *key)
{
	PyObject *v = PyDict_GetItemString(d, key);
	return v && PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
}

static int get_ints(PyObject *d, const char *key, int *out, int n)
{
	PyObject *v = PyDict_GetItemString(d, key);
	if (!v || !PySequence_Check(v) || PySequence_Size(v) != n) {
		PyErr_Format(PyExc_ValueError, "'%s' must be a sequence of %d integers", key, n);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		PyObject *x = PySequence_GetItem(v, i);
		long long y = x ? PyLong_AsLongLong(x) : -1;
		Py_XDECREF(x);
		if (y == -1 && PyErr_Occurred())
			return -1;
		out[i] = (int)y;
	}
	return 0;
}

static void *ptr_arg(PyObject *o)
{
	return o == Py_None ? NULL : PyLong_AsVoidPtr(o);
}

/* the dtypes both libraries are asked about: index into their own enums */
static int dtype_index(const char *s)
{
	static const char *const names[] = { "float32", "float16", "bfloat16" };
	for (int i = 0; s && i < 3; i++)
		if (!strcmp(s, names[i]))
			return i;
	PyErr_Format(PyExc_ValueError, "unsupported dtype %s", s ? s : "(none)");
	return -1;
}

/* a zeroed plan of size bytes owned by a capsule named name */
static void *new_plan(size_t size, const char *name, PyCapsule_Destructor free_fn, PyObject **cap)
{
	void *p = PyMem_Calloc(1, size);
	if (!p) {
		PyErr_NoMemory();
		return NULL;
	}
	if (!(*cap = PyCapsule_New(p, name, free_fn))) {
		PyMem_Free(p);
		return NULL;
	}
	return p;
}

/* appends e (a new reference, or NULL after an error) to *list; on failure
 * drops the list */
static void append_new(PyObject **list, PyObject *e)
{
	if (*list && (!e || PyList_Append(*list, e) < 0))
		Py_CLEAR(*list);
	Py_XDECREF(e);
}

/* (plan, algorithms), or NULL with the capsule dropped when list is NULL */
static PyObject *plan_result(PyObject *cap, PyObject *list)
{
	if (!list) {
		Py_DECREF(cap);
		return NULL;
	}
	return Py_BuildValue("(NN)", cap, list);
}
#endif

/* ---- cuBLASLt ---- */

#if defined(HAVE_CUBLASLT_H)
#define LT_SYMS(X) \
	X(cublasLtCreate) X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) \
	X(cublasLtMatmulDescSetAttribute) X(cublasLtMatrixLayoutCreate) X(cublasLtMatrixLayoutDestroy) \
	X(cublasLtMatrixLayoutSetAttribute) X(cublasLtMatmulPreferenceCreate) \
	X(cublasLtMatmulPreferenceDestroy) X(cublasLtMatmulPreferenceSetAttribute) \
	X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmul) X(cublasLtGetVersion)

static struct {
	void *so;
	const char *name;
	cublasLtHandle_t handle;
#define X(f) __typeof__(&f) f;
	LT_SYMS(X)
#undef X
} lt;

static const char *lt_open(void)
{
	static const char *names[] = { "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so", NULL };
	if (lt.handle)
		return NULL;
	if (!lt.so && !(lt.so = open_lib(names, &lt.name)))
		return "cannot open libcublasLt";
#define X(f) if (!(lt.f = (__typeof__(&f))dlsym(lt.so, #f))) return "libcublasLt lacks " #f;
	LT_SYMS(X)
#undef X
	if (lt.cublasLtCreate(&lt.handle) != CUBLAS_STATUS_SUCCESS) {
		lt.handle = NULL;
		return "cublasLtCreate failed";
	}
	return NULL;
}

#define MAX_ALGOS 16

struct gemm_plan {
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t a, b, c;
	cublasComputeType_t compute;
	int n;
	cublasLtMatmulHeuristicResult_t res[MAX_ALGOS];
};

static void gemm_plan_free(PyObject *cap)
{
	struct gemm_plan *p = PyCapsule_GetPointer(cap, "kopt.gemm_plan");
	if (!p)
		return;
	if (p->desc)
		lt.cublasLtMatmulDescDestroy(p->desc);
	if (p->a)
		lt.cublasLtMatrixLayoutDestroy(p->a);
	if (p->b)
		lt.cublasLtMatrixLayoutDestroy(p->b);
	if (p->c)
		lt.cublasLtMatrixLayoutDestroy(p->c);
	PyMem_Free(p);
}

static int layout(cublasLtMatrixLayout_t *l, cudaDataType_t t, long long rows, long long cols, long long ld,
		  long long batch, long long stride)
{
	if (lt.cublasLtMatrixLayoutCreate(l, t, (uint64_t)rows, (uint64_t)cols, ld) != CUBLAS_STATUS_SUCCESS)
		return -1;
	if (batch > 1) {
		int32_t bc = (int32_t)batch;
		int64_t bs = stride;
		if (lt.cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc) ||
		    lt.cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &bs, sizeof bs))
			return -1;
	}
	return 0;
}

/* gemm_plan({m, n, k, transa, transb, lda, ldb, ldc, batch, stride_a,
 * stride_b, stride_c, dtype, tf32, bias, workspace, max_algos}) ->
 * (plan, [{rank, waves, workspace}]): column-major D[m,n] = op(A) op(B)
 * (+ bias[m] broadcast over the columns), as cuBLASLt ranks it. */
static PyObject *py_gemm_plan(PyObject *self, PyObject *d)
{
	(void)self;
	const char *err = lt_open();
	if (err) {
		PyErr_SetString(PyExc_RuntimeError, err);
		return NULL;
	}
	if (!PyDict_Check(d)) {
		PyErr_SetString(PyExc_TypeError, "gemm_plan takes a dict");
		return NULL;
	}
	long long m, n, k, ta, tb, lda, ldb, ldc, batch, sa, sb, sc, tf32, bias, ws, want;
	if (get_long(d, "m", &m, 0) || get_long(d, "n", &n, 0) || get_long(d, "k", &k, 0) ||
	    get_long(d, "transa", &ta, 0) || get_long(d, "transb", &tb, 0) || get_long(d, "lda", &lda, 0) ||
	    get_long(d, "ldb", &ldb, 0) || get_long(d, "ldc", &ldc, 0) || get_long(d, "batch", &batch, 1) ||
	    get_long(d, "stride_a", &sa, 0) || get_long(d, "stride_b", &sb, 0) || get_long(d, "stride_c", &sc, 0) ||
	    get_long(d, "tf32", &tf32, 0) || get_long(d, "bias", &bias, 0) ||
	    get_long(d, "workspace", &ws, 32 << 20) || get_long(d, "max_algos", &want, 8))
		return NULL;
	static const cudaDataType_t types[] = { CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF };
	int ti = dtype_index(get_str(d, "dtype"));
	if (ti < 0)
		return NULL;
	cudaDataType_t t = types[ti];
	if (m <= 0 || n <= 0 || k <= 0 || want <= 0) {
		PyErr_SetString(PyExc_ValueError, "gemm_plan: m, n, k and max_algos must be positive");
		return NULL;
	}
	if (want > MAX_ALGOS)
		want = MAX_ALGOS;
	PyObject *cap;
	struct gemm_plan *p = new_plan(sizeof *p, "kopt.gemm_plan", gemm_plan_free, &cap);
	if (!p)
		return NULL;
	p->compute = t == CUDA_R_32F && tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
	cublasStatus_t st = lt.cublasLtMatmulDescCreate(&p->desc, p->compute, CUDA_R_32F);
	if (st) {
		Py_DECREF(cap);
		return fail("cublasLtMatmulDescCreate", "cuBLASLt", st);
	}
	cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
	lt.cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa);
	lt.cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb);
	if (bias) {
		cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
		lt.cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
		lt.cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &t, sizeof t);
	}
	if (layout(&p->a, t, ta ? k : m, ta ? m : k, lda, batch, sa) ||
	    layout(&p->b, t, tb ? n : k, tb ? k : n, ldb, batch, sb) ||
	    layout(&p->c, t, m, n, ldc, batch, sc)) {
		Py_DECREF(cap);
		PyErr_SetString(PyExc_RuntimeError, "cuBLASLt: cannot describe the matrices");
		return NULL;
	}
	cublasLtMatmulPreference_t pref;
	if ((st = lt.cublasLtMatmulPreferenceCreate(&pref))) {
		Py_DECREF(cap);
		return fail("cublasLtMatmulPreferenceCreate", "cuBLASLt", st);
	}
	uint64_t wsb = (uint64_t)ws;
	lt.cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb);
	/* a dummy bias pointer of the right alignment lets the heuristic
	 * consider the epilogue; the real one is set at run time */
	if (bias) {
		const void *fake = (const void *)(uintptr_t)256;
		lt.cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &fake, sizeof fake);
	}
	st = lt.cublasLtMatmulAlgoGetHeuristic(lt.handle, p->desc, p->a, p->b, p->c, p->c, pref, (int)want,
					       p->res, &p->n);
	lt.cublasLtMatmulPreferenceDestroy(pref);
	if (st) {
		Py_DECREF(cap);
		return fail("cublasLtMatmulAlgoGetHeuristic", "cuBLASLt", st);
	}
	PyObject *list = PyList_New(0);
	for (int i = 0; list && i < p->n; i++)
		append_new(&list, Py_BuildValue("{s:i,s:d,s:K}", "rank", i, "waves", (double)p->res[i].wavesCount,
						"workspace", (unsigned long long)p->res[i].workspaceSize));
	return plan_result(cap, list);
}

/* gemm_run(plan, rank, a, b, d, bias, workspace, workspace_bytes, stream) */
static PyObject *py_gemm_run(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *cap, *a, *b, *dd, *bias, *ws, *stream;
	int rank;
	unsigned long long wsb;
	if (!PyArg_ParseTuple(args, "OiOOOOOKO", &cap, &rank, &a, &b, &dd, &bias, &ws, &wsb, &stream))
		return NULL;
	struct gemm_plan *p = PyCapsule_GetPointer(cap, "kopt.gemm_plan");
	if (!p)
		return NULL;
	if (rank < 0 || rank >= p->n) {
		PyErr_Format(PyExc_IndexError, "gemm_run: rank %d of %d algorithms", rank, p->n);
		return NULL;
	}
	if (bias != Py_None) {
		void *bp = ptr_arg(bias);
		lt.cublasLtMatmulDescSetAttribute(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp);
	}
	float one = 1.0f, zero = 0.0f;
	void *dp = ptr_arg(dd);
	cublasStatus_t st = lt.cublasLtMatmul(lt.handle, p->desc, &one, ptr_arg(a), p->a, ptr_arg(b), p->b, &zero,
					      dp, p->c, dp, p->c, &p->res[rank].algo, ptr_arg(ws), (size_t)wsb,
					      (cudaStream_t)ptr_arg(stream));
	if (PyErr_Occurred())
		return NULL;
	if (st)
		return fail("cublasLtMatmul", "cuBLASLt", st);
	Py_RETURN_NONE;
}
#else
static PyObject *py_gemm_plan(PyObject *self, PyObject *d)
{
	(void)self; (void)d;
	PyErr_SetString(PyExc_RuntimeError, "kopt-worker was built without cublasLt.h");
	return NULL;
}

static PyObject *py_gemm_run(PyObject *self, PyObject *args)
{
	return py_gemm_plan(self, args);
}
#endif

/* ---- cuDNN ---- */

#if defined(HAVE_CUDNN_H)
#define DNN_SYMS(X) \
	X(cudnnCreate) X(cudnnSetStream) X(cudnnGetVersion) X(cudnnCreateTensorDescriptor) \
	X(cudnnDestroyTensorDescriptor) X(cudnnSetTensor4dDescriptorEx) X(cudnnCreateFilterDescriptor) \
	X(cudnnDestroyFilterDescriptor) X(cudnnSetFilter4dDescriptor) X(cudnnCreateConvolutionDescriptor) \
	X(cudnnDestroyConvolutionDescriptor) X(cudnnSetConvolution2dDescriptor) \
	X(cudnnSetConvolutionGroupCount) X(cudnnSetConvolutionMathType) \
	X(cudnnGetConvolutionForwardAlgorithm_v7) X(cudnnGetConvolutionForwardWorkspaceSize) \
	X(cudnnConvolutionForward)

static struct {
	void *so;
	const char *name;
	cudnnHandle_t handle;
#define X(f) __typeof__(&f) f;
	DNN_SYMS(X)
#undef X
} dnn;

static const char *dnn_open(void)
{
	static const char *names[] = { "libcudnn.so.9", "libcudnn.so", NULL };
	if (dnn.handle)
		return NULL;
	if (!dnn.so && !(dnn.so = open_lib(names, &dnn.name)))
		return "cannot open libcudnn";
#define X(f) if (!(dnn.f = (__typeof__(&f))dlsym(dnn.so, #f))) return "libcudnn lacks " #f;
	DNN_SYMS(X)
#undef X
	if (dnn.cudnnCreate(&dnn.handle) != CUDNN_STATUS_SUCCESS) {
		dnn.handle = NULL;
		return "cudnnCreate failed";
	}
	return NULL;
}

#define MAX_CONV_ALGOS 16

struct conv_plan {
	cudnnTensorDescriptor_t x, y;
	cudnnFilterDescriptor_t w;
	cudnnConvolutionDescriptor_t conv;
	int n;
	cudnnConvolutionFwdAlgoPerf_t res[MAX_CONV_ALGOS];
};

static void conv_plan_free(PyObject *cap)
{
	struct conv_plan *p = PyCapsule_GetPointer(cap, "kopt.conv_plan");
	if (!p)
		return;
	if (p->x)
		dnn.cudnnDestroyTensorDescriptor(p->x);
	if (p->y)
		dnn.cudnnDestroyTensorDescriptor(p->y);
	if (p->w)
		dnn.cudnnDestroyFilterDescriptor(p->w);
	if (p->conv)
		dnn.cudnnDestroyConvolutionDescriptor(p->conv);
	PyMem_Free(p);
}

/* conv_plan({x, x_stride, w, w_nhwc, y, y_stride, pad, stride, dilation,
 * groups, dtype, tf32, max_algos}) -> (plan, [{rank, algo, math, workspace,
 * status}]): a 2-D forward convolution as cuDNN's heuristic ranks it; only
 * algorithms whose math the precision policy allows are kept. */
static PyObject *py_conv_plan(PyObject *self, PyObject *d)
{
	(void)self;
	const char *err = dnn_open();
	if (err) {
		PyErr_SetString(PyExc_RuntimeError, err);
		return NULL;
	}
	if (!PyDict_Check(d)) {
		PyErr_SetString(PyExc_TypeError, "conv_plan takes a dict");
		return NULL;
	}
	int x[4], xs[4], w[4], y[4], ys[4], pad[2], str[2], dil[2];
	long long groups, tf32, nhwc, want;
	if (get_ints(d, "x", x, 4) || get_ints(d, "x_stride", xs, 4) || get_ints(d, "w", w, 4) ||
	    get_ints(d, "y", y, 4) || get_ints(d, "y_stride", ys, 4) || get_ints(d, "pad", pad, 2) ||
	    get_ints(d, "stride", str, 2) || get_ints(d, "dilation", dil, 2) || get_long(d, "groups", &groups, 1) ||
	    get_long(d, "tf32", &tf32, 0) || get_long(d, "w_nhwc", &nhwc, 0) || get_long(d, "max_algos", &want, 8))
		return NULL;
	static const cudnnDataType_t types[] = { CUDNN_DATA_FLOAT, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16 };
	int ti = dtype_index(get_str(d, "dtype"));
	if (ti < 0)
		return NULL;
	cudnnDataType_t t = types[ti];
	PyObject *cap;
	struct conv_plan *p = new_plan(sizeof *p, "kopt.conv_plan", conv_plan_free, &cap);
	if (!p)
		return NULL;
	cudnnMathType_t math = t == CUDNN_DATA_FLOAT ? (tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH)
						     : CUDNN_TENSOR_OP_MATH;
	cudnnStatus_t st;
	if ((st = dnn.cudnnCreateTensorDescriptor(&p->x)) || (st = dnn.cudnnCreateTensorDescriptor(&p->y)) ||
	    (st = dnn.cudnnCreateFilterDescriptor(&p->w)) || (st = dnn.cudnnCreateConvolutionDescriptor(&p->conv)) ||
	    (st = dnn.cudnnSetTensor4dDescriptorEx(p->x, t, x[0], x[1], x[2], x[3], xs[0], xs[1], xs[2], xs[3])) ||
	    (st = dnn.cudnnSetTensor4dDescriptorEx(p->y, t, y[0], y[1], y[2], y[3], ys[0], ys[1], ys[2], ys[3])) ||
	    (st = dnn.cudnnSetFilter4dDescriptor(p->w, t, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, w[0], w[1],
						 w[2], w[3])) ||
	    (st = dnn.cudnnSetConvolution2dDescriptor(p->conv, pad[0], pad[1], str[0], str[1], dil[0], dil[1],
						      CUDNN_CROSS_CORRELATION,
						      t == CUDNN_DATA_HALF ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT)) ||
	    (st = dnn.cudnnSetConvolutionGroupCount(p->conv, (int)groups)) ||
	    (st = dnn.cudnnSetConvolutionMathType(p->conv, math))) {
		Py_DECREF(cap);
		return fail("describing the convolution", "cuDNN", st);
	}
	cudnnConvolutionFwdAlgoPerf_t all[MAX_CONV_ALGOS];
	int got = 0;
	st = dnn.cudnnGetConvolutionForwardAlgorithm_v7(dnn.handle, p->x, p->w, p->conv, p->y, MAX_CONV_ALGOS, &got,
							all);
	if (st) {
		Py_DECREF(cap);
		return fail("cudnnGetConvolutionForwardAlgorithm_v7", "cuDNN", st);
	}
	PyObject *list = PyList_New(0);
	for (int i = 0; list && i < got && p->n < want; i++) {
		if (all[i].status != CUDNN_STATUS_SUCCESS)
			continue;
		/* strict fp32 runs FMA math only: no TF32 tensor cores */
		if (t == CUDNN_DATA_FLOAT && !tf32 && all[i].mathType != CUDNN_FMA_MATH)
			continue;
		p->res[p->n] = all[i];
		append_new(&list, Py_BuildValue("{s:i,s:i,s:i,s:K,s:i}", "rank", p->n, "algo", (int)all[i].algo, "math",
						(int)all[i].mathType, "workspace", (unsigned long long)all[i].memory,
						"heuristic_rank", i));
		p->n++;
	}
	return plan_result(cap, list);
}

/* conv_run(plan, rank, x, w, y, workspace, workspace_bytes, stream) */
static PyObject *py_conv_run(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *cap, *x, *w, *y, *ws, *stream;
	int rank;
	unsigned long long wsb;
	if (!PyArg_ParseTuple(args, "OiOOOOKO", &cap, &rank, &x, &w, &y, &ws, &wsb, &stream))
		return NULL;
	struct conv_plan *p = PyCapsule_GetPointer(cap, "kopt.conv_plan");
	if (!p)
		return NULL;
	if (rank < 0 || rank >= p->n) {
		PyErr_Format(PyExc_IndexError, "conv_run: rank %d of %d algorithms", rank, p->n);
		return NULL;
	}
	cudnnStatus_t st;
	if ((st = dnn.cudnnSetStream(dnn.handle, (cudaStream_t)ptr_arg(stream))) ||
	    (st = dnn.cudnnSetConvolutionMathType(p->conv, p->res[rank].mathType)))
		return fail("cudnnSetStream", "cuDNN", st);
	float one = 1.0f, zero = 0.0f;
	st = dnn.cudnnConvolutionForward(dnn.handle, &one, p->x, ptr_arg(x), p->w, ptr_arg(w), p->conv,
					 p->res[rank].algo, ptr_arg(ws), (size_t)wsb, &zero, p->y, ptr_arg(y));
	if (PyErr_Occurred())
		return NULL;
	if (st)
		return fail("cudnnConvolutionForward", "cuDNN", st);
	Py_RETURN_NONE;
}
#else
static PyObject *py_conv_plan(PyObject *self, PyObject *d)
{
	(void)self; (void)d;
	PyErr_SetString(PyExc_RuntimeError, "kopt-worker was built without cudnn.h");
	return NULL;
}

static PyObject *py_conv_run(PyObject *self, PyObject *args)
{
	return py_conv_plan(self, args);
}
#endif

/* status() -> {cublaslt: "libcublasLt.so.13 (version N)" or the reason, cudnn: ...} */
static PyObject *py_vendor_status(PyObject *self, PyObject *args)
{
	(void)self; (void)args;
	char lt_s[128], dnn_s[128];
#if defined(HAVE_CUBLASLT_H)
	const char *e1 = lt_open();
	if (e1)
		snprintf(lt_s, sizeof lt_s, "unavailable: %s", e1);
	else
		snprintf(lt_s, sizeof lt_s, "%s (version %zu)", lt.name, lt.cublasLtGetVersion());
#else
	snprintf(lt_s, sizeof lt_s, "unavailable: built without cublasLt.h");
#endif
#if defined(HAVE_CUDNN_H)
	const char *e2 = dnn_open();
	if (e2)
		snprintf(dnn_s, sizeof dnn_s, "unavailable: %s", e2);
	else
		snprintf(dnn_s, sizeof dnn_s, "%s (version %zu)", dnn.name, dnn.cudnnGetVersion());
#else
	snprintf(dnn_s, sizeof dnn_s, "unavailable: built without cudnn.h");
#endif
	return Py_BuildValue("{s:s,s:s}", "cublaslt", lt_s, "cudnn", dnn_s);
}

static PyMethodDef vendor_methods[] = {
	{ "status", py_vendor_status, METH_NOARGS, "which vendor libraries are open, or why not" },
	{ "gemm_plan", py_gemm_plan, METH_O, "cuBLASLt's ranked algorithms for one GEMM" },
	{ "gemm_run", py_gemm_run, METH_VARARGS, "run one of a plan's GEMM algorithms" },
	{ "conv_plan", py_conv_plan, METH_O, "cuDNN's ranked algorithms for one 2-D convolution" },
	{ "conv_run", py_conv_run, METH_VARARGS, "run one of a plan's convolution algorithms" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef vendor_module = {
	PyModuleDef_HEAD_INIT, "_kopt_vendor", "cuBLASLt's and cuDNN's heuristics, in kopt-worker", -1,
	vendor_methods, NULL, NULL, NULL, NULL,
};

PyObject *kopt_init_vendor_module(void)
{
	return PyModule_Create(&vendor_module);
}
