/*
 * gates/gates.h: the verification cascade's arithmetic.
 *
 * A GPU worker measures; koptmake decides. The worker sends the numbers of a
 * verify or stitch step (the "numbers" object of its reply, specified in
 * runtime/PROTOCOL.md) and these functions turn them into a verdict with the
 * spec's gate settings (struct kopt_gates). Nothing here touches a GPU, a file
 * or a clock: every function is a pure function of its arguments, so the
 * tests replay recorded numbers.
 *
 * The cascade, cheapest first: static -> correctness -> fp64 -> perf. A
 * failure stops it. fp64 is a fallback: it runs only when correctness failed
 * on tolerance alone (shapes, NaN places, aliasing and modified inputs are
 * never rescued) and the gate set allows it.
 *
 * Ownership: a verdict is a plain value with no pointers; the caller owns it
 * and nothing needs freeing. gate_verdict_to_json() returns a new reference
 * the caller must json_decref(). Numbers a gate did not compute are NAN.
 */
#ifndef KOPT_GATES_H
#define KOPT_GATES_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "../lang/spec.h"

enum gate_id {
	GATE_NONE = 0,    /* no gate ran (an empty or malformed reply) */
	GATE_STATIC,
	GATE_CORRECTNESS,
	GATE_FP64,
	GATE_PERF,
	GATE_COUNT
};

/* The dtype of an output: it picks the tolerances and the fp64 multiplier. */
enum gate_dtype {
	GATE_DTYPE_FP32,  /* float32; also float64 outputs (fp32 tolerances) */
	GATE_DTYPE_HALF,  /* float16 and bfloat16 */
	GATE_DTYPE_EXACT, /* integers and bool: compared exactly (atol = rtol = 0) */
	GATE_DTYPE_UNKNOWN
};

#define GATE_REASON_MAX 256

/* Statistics of one level (kernel or model) of interleaved timing pairs. */
struct gate_timing {
	size_t pairs;        /* number of (base, cand) pairs; 0 = not measured */
	double base_median;  /* ns */
	double cand_median;  /* ns */
	double speedup;      /* base_median / cand_median */
	double ratio_q25;    /* lower quartile of the per-pair ratios base_i / cand_i */
	double ratio_median; /* their median */
	double ratio_q75;    /* their upper quartile */
	double noise;        /* (ratio_q75 - ratio_q25) / ratio_median: relative spread */
};

struct gate_verdict {
	bool pass;
	enum gate_id gate;     /* the gate that failed; on a pass, the last gate run */
	unsigned gates_run;    /* bit (1u << GATE_x) for each gate that ran */
	char reason[GATE_REASON_MAX]; /* one line, e.g. "perf: speedup 1.01x < gamma 1.05 (kernel)" */

	/* correctness: the worst output over all seeds */
	int seeds;             /* seeds checked; -1 = not run */
	int seed;              /* seed of the failure or of the largest error; -1 = none */
	int output;            /* output index of the same; -1 = none */
	double max_abs;        /* largest max abs error over every seed and output */
	double max_rel;        /* largest max rel error */
	double atol, rtol;     /* tolerances applied to that output */

	/* fp64 fallback: the worst output */
	double rmse_cand;      /* candidate's RMSE to the float64 reference */
	double rmse_base;      /* baseline's RMSE to it */
	double rmse_limit;     /* m * rmse_base + tol / 10 */

	/* perf */
	double gamma;
	struct gate_timing kernel; /* CUPTI device time of the kernel */
	struct gate_timing model;  /* CUDA time of a whole model call */
	bool host_held;        /* model samples: the candidate's host time held at
				  its pair's baseline's (gate.c, hold_host) */
};

/* "static", "correctness", "fp64", "perf"; "none" for GATE_NONE */
const char *gate_name(enum gate_id gate);

/* "float32", "torch.float16", "bf16", "int64", ... -> class; unknown names give GATE_DTYPE_UNKNOWN */
enum gate_dtype gate_dtype_parse(const char *name);

/* The gate set's defaults, as lang fills them (lang/fields.h,
 * KOPT_GATES_FIELDS); name is NULL. */
void gate_config_default(struct kopt_gates *cfg);

/* The tolerances for a dtype class under cfg. */
void gate_tolerance(const struct kopt_gates *cfg, enum gate_dtype dt, double *atol, double *rtol);

/* Empties a verdict: fail, GATE_NONE, every number NAN, counters -1. */
void gate_verdict_init(struct gate_verdict *v);

/*
 * Gate 1. static is decided by the worker's Python checker
 * (runtime/python/kopt/static_gate.py); num is the "static" object
 * {"ok": bool, "reason": "..."}. Returns v->pass.
 */
bool gate_static(const json_t *num, struct gate_verdict *v);

/*
 * Gate 2. num is the "correctness" object: {"seeds": [{seed, input_modified,
 * outputs: [{index, dtype, shape_mismatch, stride_mismatch, dtype_mismatch,
 * aliases_input, nan_mismatch, inf_mismatch, max_abs, max_rel, ref_max_abs,
 * allclose}]}]}. Fewer seeds than cfg->seeds is a failure. *tolerance_only is
 * set when the only failures are errors beyond tolerance (what the fp64
 * fallback may rescue). Returns v->pass.
 */
bool gate_correctness(const json_t *num, const struct kopt_gates *cfg,
		      struct gate_verdict *v, bool *tolerance_only);

/*
 * Gate 3, one output: dynamo's rule (torch/_dynamo/utils.py `same`): pass iff
 * rmse_cand <= m * rmse_base + tol / 10, with m = 2 for fp32 and 3 for half
 * types. Fills v's fp64 numbers and reason. Returns v->pass.
 */
bool gate_fp64(double rmse_cand, double rmse_base, double tol, enum gate_dtype dt,
	       struct gate_verdict *v);

/* Gate 3 on the "fp64" object {"outputs": [{index, dtype, rmse_cand, rmse_base}]}:
 * every output must pass gate_fp64 with its dtype's atol as tol. */
bool gate_fp64_json(const json_t *num, const struct kopt_gates *cfg, struct gate_verdict *v);

/*
 * Gate 3 under the strict precision policy, on the "precision" object
 * {"outputs": [{index, dtype, rmse_cand, rmse_base, ref_rms}]} (seed 0,
 * sent whether or not the outputs are within tolerance): the candidate must
 * be as close to the float64 reference as the baseline, within m = 2 (3 for
 * half types) plus 4 ulps of the outputs' scale. Returns v->pass.
 */
bool gate_precision_json(const json_t *num, const struct kopt_gates *cfg, struct gate_verdict *v);

/*
 * Per-pair statistics of n interleaved timing pairs (base[i] and cand[i] were
 * measured back to back). Returns 0, or -1 when n is 0 or a sample is not a
 * positive finite number (t is then zeroed).
 */
int gate_timing_stats(const double *base, const double *cand, size_t n, struct gate_timing *t);
/* a JSON array of numbers as *n doubles in *out (caller frees); -1 (and
 * *out NULL) where a is no array or holds anything but numbers */
int gate_read_samples(const json_t *a, double **out, size_t *n);

enum gate_level { GATE_LEVEL_KERNEL, GATE_LEVEL_MODEL };

/*
 * Gate 4 is a sequential test. The worker times up to `repeats` pairs and
 * may stop once GATE_SEQ_MIN_PAIRS pairs are in and the pair ratios settle
 * the question (their lower quartile at gamma or above, or their upper
 * quartile below it: runtime/python/kopt/verify.py, perf_decided); the
 * decision below is taken on the pairs it sent. gate_min_pairs() is the
 * fewest pairs a level may have: GATE_SEQ_MIN_PAIRS, or `repeats` (at
 * least 3) when that is fewer. The request carries it as "min_pairs".
 */
#define GATE_SEQ_MIN_PAIRS 6
size_t gate_min_pairs(const struct kopt_gates *cfg);

/*
 * Gate 4 on one level. Pass iff
 *   - there are at least min_pairs pairs and both sides have as many samples;
 *   - speedup = median(base) / median(cand) >= gamma; and
 *   - the lower quartile of the per-pair ratios base_i / cand_i is >= 1.
 * The last condition is the noise rule; see perf.c for why. Fills v->kernel
 * or v->model by level. Returns v->pass.
 */
bool gate_perf(const double *base, size_t nbase, const double *cand, size_t ncand,
	       double gamma, size_t min_pairs, enum gate_level level, struct gate_verdict *v);

/*
 * The model check of a single-kernel verify: one faster kernel of a few
 * percent of the model's time cannot make the model gamma faster, so the
 * model must only not be slower. Fails iff speedup < 1 and the upper quartile
 * of the per-pair ratios is < 1 (three pairs in four show the candidate
 * slower); a model within the noise passes. Fills v->model.
 */
bool gate_no_regression(const double *base, size_t nbase, const double *cand, size_t ncand,
			size_t min_pairs, struct gate_verdict *v);

/*
 * The cascade on a reply's "numbers" object, on the gates present in it:
 * static -> correctness -> fp64 (only as correctness's fallback) -> perf.
 * perf takes "base_ns"/"cand_ns" (kernel, gamma) and "model_base_ns"/
 * "model_cand_ns" (model: gamma when there are no kernel samples, as in a
 * stitch; no regression otherwise). cfg NULL means gate_config_default().
 * Returns 0 with *out filled (out->pass is the verdict), -1 when numbers is
 * not an object (out then fails with gate GATE_NONE). An object with no
 * known gate fails with GATE_NONE too: the caller checks out->gates_run for
 * the gates its step requires.
 */
int gate_decide(const json_t *numbers, const struct kopt_gates *cfg, struct gate_verdict *out);

/*
 * The compiled baseline against eager (gates/baseline.c), on the "check"
 * object of a profile reply: {"seeds": [{seed, outputs: [{index, dtype,
 * shape_mismatch, dtype_mismatch, nan_mismatch, inf_mismatch, max_abs,
 * max_rel, ref_max_abs, allclose, and where they differ: rmse_compiled,
 * rmse_eager, eager_close64, compiled_close64}]}]}. Writes a one-line reason
 * into reason[n]. cfg NULL means the defaults. An absent or empty check is
 * GATE_BASE_UNCHECKED (an older worker): usable, and said so.
 */
enum gate_baseline_status {
	GATE_BASE_UNCHECKED = 0,
	GATE_BASE_AGREES,    /* allclose to eager */
	GATE_BASE_ACCURATE,  /* differs from eager, as close to float64 as eager */
	GATE_BASE_ILL,       /* eager and the compile both far from float64 */
	GATE_BASE_WRONG,     /* eager matches float64, the compile does not */
};
enum gate_baseline_status gate_baseline(const json_t *check, const struct kopt_gates *cfg, char *reason, size_t n);
/* "agrees", "accurate", "wrong", "ill-conditioned", "unchecked" */
const char *gate_baseline_name(enum gate_baseline_status s);
/* a baseline a speedup may be claimed over: unchecked, agrees or accurate */
bool gate_baseline_usable(enum gate_baseline_status s);

/* Sets v->reason (one line, truncated to fit); for the gate files. */
void gate_reason(struct gate_verdict *v, const char *fmt, ...) KOPT_PRINTF(2, 3);

/* Writes x with two significant digits, dropping a trailing zero digit:
 * 1e-04, 2.5e-04, 3.1e-03; 0 as "0"; returns buf. */
char *gate_fmt_num(char *buf, size_t n, double x);

/* The verdict as JSON for the log and `koptmake -t why`: {"verdict", "gate",
 * "reason", "numbers": {...}} with the NAN numbers left out. New reference. */
json_t *gate_verdict_to_json(const struct gate_verdict *v);

#endif
