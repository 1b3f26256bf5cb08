/*
 * tests/unit/gates_test.c: the gate arithmetic on recorded-shape numbers:
 * tolerance edges, the RMSE rule, the noise rule on clean and noisy sample
 * sets, the cascade's order, and every reason string.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../gates/gates.h"
#include "../tap.h"

static struct kopt_gates cfg;

static json_t *J(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);
	if (!j) {
		fprintf(stderr, "bad test JSON: %s: %s\n", err.text, text);
		exit(2);
	}
	return j;
}

/* A correctness object: n seeds, k outputs each, all float32, all clean. */
static json_t *corr(int n, int k)
{
	json_t *seeds = json_array();
	for (int s = 0; s < n; s++) {
		json_t *outs = json_array();
		for (int o = 0; o < k; o++) {
			json_t *x = json_object();
			json_object_set_new(x, "index", json_integer(o));
			json_object_set_new(x, "dtype", json_string("float32"));
			json_object_set_new(x, "shape_mismatch", json_false());
			json_object_set_new(x, "stride_mismatch", json_false());
			json_object_set_new(x, "dtype_mismatch", json_false());
			json_object_set_new(x, "aliases_input", json_false());
			json_object_set_new(x, "nan_mismatch", json_false());
			json_object_set_new(x, "inf_mismatch", json_false());
			json_object_set_new(x, "max_abs", json_real(2e-6));
			json_object_set_new(x, "max_rel", json_real(3e-6));
			json_object_set_new(x, "ref_max_abs", json_real(4.5));
			json_object_set_new(x, "allclose", json_true());
			json_array_append_new(outs, x);
		}
		json_t *seed = json_object();
		json_object_set_new(seed, "seed", json_integer(s));
		json_object_set_new(seed, "input_modified", json_false());
		json_object_set_new(seed, "outputs", outs);
		json_array_append_new(seeds, seed);
	}
	json_t *c = json_object();
	json_object_set_new(c, "seeds", seeds);
	return c;
}

static json_t *seed_of(json_t *c, int s)
{
	return json_array_get(json_object_get(c, "seeds"), (size_t)s);
}

static json_t *out_of(json_t *c, int s, int o)
{
	return json_array_get(json_object_get(seed_of(c, s), "outputs"), (size_t)o);
}

static void set_err(json_t *c, int s, int o, double max_abs, bool allclose)
{
	json_object_set_new(out_of(c, s, o), "max_abs", json_real(max_abs));
	json_object_set_new(out_of(c, s, o), "allclose", json_boolean(allclose));
}

static bool run_corr(json_t *c, struct gate_verdict *v, bool *tol_only)
{
	gate_verdict_init(v);
	bool ok = gate_correctness(c, &cfg, v, tol_only);
	json_decref(c);
	return ok;
}

static void test_tolerance(void)
{
	struct gate_verdict v;
	bool tol;
	json_t *c;

	TAP_OK(run_corr(corr(5, 1), &v, &tol), "clean fp32 outputs pass");
	TAP_IS_STR(v.reason, "correctness: 5 seeds, max abs error 2e-06, max rel error 3e-06, within atol 1e-04 + rtol 1e-04 * |ref|",
		   "pass reason");
	TAP_IS_INT(v.seeds, 5, "seeds counted");

	c = corr(5, 1);
	set_err(c, 3, 0, 1e-4, false);
	TAP_OK(run_corr(c, &v, &tol), "max_abs == atol passes even with allclose false (<=)");

	c = corr(5, 1);
	set_err(c, 3, 0, nextafter(1e-4, 1), true);
	TAP_OK(run_corr(c, &v, &tol), "just above atol: the worker's allclose decides (pass)");

	c = corr(5, 1);
	set_err(c, 3, 0, nextafter(1e-4, 1), false);
	TAP_OK(!run_corr(c, &v, &tol) && tol, "just above atol with allclose false fails on tolerance");

	c = corr(5, 1);
	set_err(c, 2, 0, 3.1e-3, false);
	TAP_OK(!run_corr(c, &v, &tol), "3.1e-03 at seed 2 fails");
	TAP_IS_STR(v.reason, "correctness: max abs error 3.1e-03 > atol 1e-04 + rtol 1e-04 * |ref| at seed 2",
		   "tolerance reason");
	TAP_OK(tol, "a tolerance failure is tolerance-only");
	TAP_IS_INT(v.seed, 2, "failing seed recorded");
	TAP_OK(v.max_abs == 3.1e-3 && v.atol == 1e-4 && v.rtol == 1e-4, "numbers recorded");

	c = corr(5, 1);
	set_err(c, 1, 0, 2e-3, false);
	set_err(c, 4, 0, 5e-3, false);
	run_corr(c, &v, &tol);
	TAP_IS_STR(v.reason, "correctness: max abs error 5e-03 > atol 1e-04 + rtol 1e-04 * |ref| at seed 4",
		   "the worst failing seed is named");

	c = corr(5, 1);
	set_err(c, 0, 0, 0.5, true);
	json_object_set_new(out_of(c, 0, 0), "ref_max_abs", json_real(1.0));
	TAP_OK(!run_corr(c, &v, &tol), "allclose contradicted by the figures fails");
	TAP_IS_STR(v.reason, "correctness: allclose reported but max abs error 5e-01 > atol 1e-04 + rtol 1e-04 * max |ref| 1e+00 at seed 0",
		   "contradiction reason");

	c = corr(5, 1);
	set_err(c, 0, 0, 1.5e-4, true);
	json_object_set_new(out_of(c, 0, 0), "ref_max_abs", json_real(1.0));
	TAP_OK(run_corr(c, &v, &tol), "allclose consistent with atol + rtol * max|ref| passes");

	/* half types */
	c = corr(5, 1);
	json_object_set_new(out_of(c, 0, 0), "dtype", json_string("bfloat16"));
	set_err(c, 0, 0, 5e-3, false);
	TAP_OK(run_corr(c, &v, &tol), "bf16 5e-03 within atol_half 1e-02");
	TAP_OK(v.atol == 1e-2, "the worst output of a clean run is reported with its own tolerance");

	c = corr(5, 1);
	json_object_set_new(out_of(c, 1, 0), "dtype", json_string("torch.float16"));
	set_err(c, 1, 0, 2e-2, false);
	TAP_OK(!run_corr(c, &v, &tol), "fp16 2e-02 beyond atol_half");
	TAP_IS_STR(v.reason, "correctness: max abs error 2e-02 > atol 1e-02 + rtol 1e-02 * |ref| at seed 1",
		   "half tolerance reason");

	c = corr(5, 1);
	set_err(c, 0, 0, 5e-3, false);
	TAP_OK(!run_corr(c, &v, &tol), "fp32 5e-03 fails where bf16 would pass");

	/* exact dtypes */
	c = corr(5, 1);
	json_object_set_new(out_of(c, 0, 0), "dtype", json_string("int64"));
	set_err(c, 0, 0, 1, true);
	TAP_OK(!run_corr(c, &v, &tol), "int64 off by one fails whatever allclose says");
	TAP_IS_STR(v.reason, "correctness: max abs error 1e+00 > 0 (exact dtype int64) at seed 0", "exact reason");

	c = corr(5, 1);
	json_object_set_new(out_of(c, 0, 0), "dtype", json_string("bool"));
	set_err(c, 0, 0, 0, true);
	TAP_OK(run_corr(c, &v, &tol), "equal bool output passes");

	/* several outputs */
	c = corr(5, 2);
	set_err(c, 3, 1, 7e-4, false);
	TAP_OK(!run_corr(c, &v, &tol), "second output fails");
	TAP_IS_STR(v.reason, "correctness: max abs error 7e-04 > atol 1e-04 + rtol 1e-04 * |ref| at seed 3, output 1",
		   "output named when there are several");
	TAP_IS_INT(v.output, 1, "output index recorded");

	/* seeds */
	TAP_OK(!run_corr(corr(3, 1), &v, &tol) && !tol, "3 seeds when 5 are asked fails");
	TAP_IS_STR(v.reason, "correctness: 3 seeds checked, gates ask for 5", "seed count reason");
	TAP_OK(!run_corr(corr(0, 1), &v, &tol), "no seeds fails");
	TAP_IS_STR(v.reason, "correctness: 0 seeds checked, gates ask for 5", "no seeds, no error: the count");
	c = corr(0, 1);
	json_object_set_new(c, "error", json_string("OutOfResources: out of resource: shared memory, Required: 262144"));
	TAP_OK(!run_corr(c, &v, &tol), "a candidate that did not run fails");
	TAP_IS_STR(v.reason, "correctness: the candidate did not run: OutOfResources: out of resource: shared memory, "
		   "Required: 262144", "... and the worker's error is the reason");
	cfg.seeds = 1;
	TAP_OK(run_corr(corr(1, 1), &v, &tol), "seeds = 1: one clean seed passes");
	TAP_OK(v.seeds == 1 && strstr(v.reason, "max abs error 2e-06, max rel error 3e-06, within atol 1e-04"),
	       "seeds = 1: one seed counted, its figures in the reason (%s)", v.reason);
	cfg.seeds = 5;
	TAP_OK(!run_corr(corr(5, 0), &v, &tol), "no outputs fails");
	TAP_IS_STR(v.reason, "correctness: no outputs compared at seed 0", "no outputs reason");
}

static void test_structural(void)
{
	static const struct { const char *key, *reason; } flags[] = {
		{ "dtype_mismatch", "correctness: output 0 dtype differs from the baseline's at seed 1" },
		{ "shape_mismatch", "correctness: output 0 shape differs from the baseline's at seed 1" },
		{ "stride_mismatch", "correctness: output 0 strides differ from the baseline's at seed 1" },
		{ "aliases_input", "correctness: output 0 aliases an input at seed 1" },
		{ "nan_mismatch", "correctness: output 0 has NaN in other places than the baseline at seed 1" },
		{ "inf_mismatch", "correctness: output 0 has Inf in other places than the baseline at seed 1" },
	};
	struct gate_verdict v;
	bool tol;
	json_t *c;

	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		c = corr(5, 1);
		json_object_set_new(out_of(c, 1, 0), flags[i].key, json_true());
		TAP_OK(!run_corr(c, &v, &tol) && !tol, "%s fails, not tolerance-only", flags[i].key);
		TAP_IS_STR(v.reason, flags[i].reason, flags[i].key);
	}

	c = corr(5, 1);
	json_object_set_new(seed_of(c, 1), "input_modified", json_true());
	TAP_OK(!run_corr(c, &v, &tol) && !tol, "modified input fails");
	TAP_IS_STR(v.reason, "correctness: the candidate modified an input at seed 1", "modified input reason");

	c = corr(5, 1);
	set_err(c, 0, 0, 1.0, false);
	json_object_set_new(out_of(c, 3, 0), "nan_mismatch", json_true());
	TAP_OK(!run_corr(c, &v, &tol) && !tol, "a structural failure outranks an earlier tolerance failure");
	TAP_IS_STR(v.reason, "correctness: output 0 has NaN in other places than the baseline at seed 3", "NaN named first");

	c = corr(5, 1);
	json_object_set_new(out_of(c, 0, 0), "dtype", json_string("complex64"));
	TAP_OK(!run_corr(c, &v, &tol), "unknown dtype fails");
	TAP_IS_STR(v.reason, "correctness: output 0 has an unsupported dtype 'complex64' at seed 0", "dtype reason");

	/* malformed replies */
	c = corr(5, 1);
	json_object_del(out_of(c, 2, 0), "nan_mismatch");
	TAP_OK(!run_corr(c, &v, &tol) && !tol, "missing flag fails");
	TAP_IS_STR(v.reason, "correctness: bad numbers: seeds[2].outputs[0].nan_mismatch is not a boolean", "missing flag reason");

	/* each of the flags, the first and the last of the list too */
	int named = 0;
	for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
		char want[160];
		c = corr(5, 1);
		json_object_set_new(out_of(c, 1, 0), flags[f].key, json_string("no"));
		snprintf(want, sizeof want, "correctness: bad numbers: seeds[1].outputs[0].%s is not a boolean",
			 flags[f].key);
		named += !run_corr(c, &v, &tol) && !strcmp(v.reason, want);
	}
	TAP_IS_INT(named, (int)(sizeof flags / sizeof flags[0]), "each output flag that is not a boolean is named, dtype_mismatch first");

	c = corr(5, 1);
	json_object_set_new(out_of(c, 4, 0), "max_abs", json_string("small"));
	run_corr(c, &v, &tol);
	TAP_IS_STR(v.reason, "correctness: bad numbers: seeds[4].outputs[0].max_abs is not a finite number >= 0", "bad number reason");

	c = corr(5, 1);
	json_object_del(seed_of(c, 0), "input_modified");
	run_corr(c, &v, &tol);
	TAP_IS_STR(v.reason, "correctness: bad numbers: seeds[0].input_modified is not a boolean", "missing seed flag reason");

	c = J("{\"seeds\": 3}");
	run_corr(c, &v, &tol);
	TAP_IS_STR(v.reason, "correctness: bad numbers: \"seeds\" is not an array", "seeds not an array");
}

static void test_fp64(void)
{
	struct gate_verdict v;

	gate_verdict_init(&v);
	TAP_OK(gate_fp64(8e-5, 5e-5, 1e-4, GATE_DTYPE_FP32, &v), "fp32: 8e-05 <= 2 * 5e-05 + 1e-05");
	TAP_IS_STR(v.reason, "fp64: rmse to fp64 8e-05 <= 2 x baseline's 5e-05 + tol/10 1e-05", "fp64 pass reason");
	TAP_OK(fabs(v.rmse_limit - 1.1e-4) < 1e-12, "limit recorded");

	gate_verdict_init(&v);
	TAP_OK(!gate_fp64(2.1e-4, 5e-5, 1e-4, GATE_DTYPE_FP32, &v), "fp32: 2.1e-04 > 1.1e-04");
	TAP_IS_STR(v.reason, "fp64: rmse to fp64 2.1e-04 > 2 x baseline's 5e-05 + tol/10 1e-05", "fp64 fail reason");
	TAP_IS_INT(v.gate, GATE_FP64, "fp64 gate named");

	gate_verdict_init(&v);
	TAP_OK(gate_fp64(0.5, 0.25, 0, GATE_DTYPE_FP32, &v), "exactly m x baseline passes (<=)");
	gate_verdict_init(&v);
	TAP_OK(!gate_fp64(nextafter(0.5, 1), 0.25, 0, GATE_DTYPE_FP32, &v), "just above m x baseline fails");

	gate_verdict_init(&v);
	TAP_OK(gate_fp64(3.5e-3, 1e-3, 1e-2, GATE_DTYPE_HALF, &v), "half: m = 3: 3.5e-03 <= 3e-03 + 1e-03");
	TAP_IS_STR(v.reason, "fp64: rmse to fp64 3.5e-03 <= 3 x baseline's 1e-03 + tol/10 1e-03", "half reason shows m = 3");
	gate_verdict_init(&v);
	TAP_OK(!gate_fp64(3.5e-3, 1e-3, 1e-2, GATE_DTYPE_FP32, &v), "the same figures fail with m = 2");

	gate_verdict_init(&v);
	TAP_OK(gate_fp64(5e-6, 0, 1e-4, GATE_DTYPE_FP32, &v), "exact baseline: tol/10 leaves room");
	gate_verdict_init(&v);
	TAP_OK(!gate_fp64(2e-5, 0, 1e-4, GATE_DTYPE_FP32, &v), "exact baseline: beyond tol/10 fails");

	gate_verdict_init(&v);
	TAP_OK(!gate_fp64(NAN, 1e-5, 1e-4, GATE_DTYPE_FP32, &v), "NaN rmse fails");
	TAP_IS_STR(v.reason, "fp64: rmse is not a finite number (candidate nan, baseline 1e-05)", "NaN rmse reason");
	/* an rmse below 0 is no measurement either, of the candidate or of the
	 * baseline alone: a reply that says one fails, whatever the other */
	gate_verdict_init(&v);
	TAP_OK(!gate_fp64(-1e-5, 1e-5, 1e-4, GATE_DTYPE_FP32, &v) &&
	       !strcmp(v.reason, "fp64: rmse is not a finite number (candidate -1e-05, baseline 1e-05)"),
	       "a negative rmse of the candidate fails (%s)", v.reason);
	gate_verdict_init(&v);
	TAP_OK(!gate_fp64(1e-5, -1e-5, 1e-4, GATE_DTYPE_FP32, &v), "a negative rmse of the baseline fails");

	json_t *j = J("{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":1e-6,\"rmse_base\":1e-6},"
		      "{\"index\":1,\"dtype\":\"bfloat16\",\"rmse_cand\":9e-3,\"rmse_base\":2e-3}]}");
	gate_verdict_init(&v);
	TAP_OK(!gate_fp64_json(j, &cfg, &v), "fp64 json: the bf16 output fails (9e-03 > 6e-03 + 1e-03)");
	TAP_IS_STR(v.reason, "fp64: rmse to fp64 9e-03 > 3 x baseline's 2e-03 + tol/10 1e-03 (output 1)", "fp64 json reason");
	json_decref(j);

	j = J("{\"outputs\":[{\"index\":0,\"dtype\":\"int64\",\"rmse_cand\":0,\"rmse_base\":0}]}");
	gate_verdict_init(&v);
	TAP_OK(!gate_fp64_json(j, &cfg, &v), "fp64 of an integer output fails");
	TAP_IS_STR(v.reason, "fp64: output 0 has dtype 'int64', not a floating type", "integer fp64 reason");
	json_decref(j);

	j = J("{\"outputs\":[]}");
	gate_verdict_init(&v);
	gate_fp64_json(j, &cfg, &v);
	TAP_IS_STR(v.reason, "fp64: bad numbers: \"outputs\" is not a non-empty array", "empty fp64 reason");
	json_decref(j);
}

/* Sample sets in the shape the worker records them (ns per run, interleaved). */
static const double clean_base[10] = { 100210, 100480, 99870, 100050, 100330, 99940, 100120, 100600, 99990, 100260 };
static const double clean_cand[10] = { 80110, 80350, 79920, 80040, 80290, 79880, 80170, 80420, 79960, 80230 };
/* medians give 1.05x, but three pairs in ten have the candidate slower */
static const double noisy_base[10] = { 104000, 98000, 131000, 97000, 102000, 125000, 99000, 96000, 118000, 101000 };
static const double noisy_cand[10] = { 92000, 101000, 95000, 104000, 90000, 99000, 103000, 94000, 112000, 91000 };
/* both sides drift by 40% together (clock changes): every pair says 1.11x */
static const double drift_base[10] = { 100000, 140000, 90000, 120000, 105000, 130000, 95000, 110000, 125000, 100000 };
static const double drift_cand[10] = { 90000, 126000, 81000, 108000, 94500, 117000, 85500, 99000, 112500, 90000 };
/* a bimodal candidate: six fast runs, four slow ones */
static const double bimodal_base[10] = { 100000, 100000, 100000, 100000, 100000, 100000, 100000, 100000, 100000, 100000 };
static const double bimodal_cand[10] = { 80000, 130000, 80000, 130000, 80000, 80000, 130000, 80000, 130000, 80000 };

static void test_perf(void)
{
	struct gate_verdict v;
	struct gate_timing t;
	double b[10], c[10];

	TAP_OK(gate_timing_stats(clean_base, clean_cand, 10, &t) == 0, "stats of a clean set");
	TAP_OK(fabs(t.speedup - 100165.0 / 80140.0) < 1e-9, "speedup = ratio of medians");
	TAP_OK(t.ratio_q25 > 1.24 && t.ratio_q75 < 1.26 && t.noise < 0.01, "clean set: narrow pair ratios");
	TAP_OK(gate_timing_stats(clean_base, clean_cand, 0, &t) == -1, "no pairs is an error");

	gate_verdict_init(&v);
	TAP_OK(gate_perf(clean_base, 10, clean_cand, 10, 1.03, 10, GATE_LEVEL_KERNEL, &v), "clean 1.25x passes");
	TAP_IS_STR(v.reason, "perf: kernel 1.250x >= gamma 1.03 (pair ratios' lower quartile 1.250, spread 0%)",
		   "perf pass reason");

	gate_verdict_init(&v);
	TAP_OK(!gate_perf(noisy_base, 10, noisy_cand, 10, 1.03, 10, GATE_LEVEL_KERNEL, &v), "noisy 1.05x (7 pairs in 10 faster) fails");
	TAP_OK(v.kernel.speedup > 1.03, "... although its medians clear gamma");
	tap_diag("noisy set: speedup %.3f, pair ratios q25 %.3f q75 %.3f", v.kernel.speedup,
		 v.kernel.ratio_q25, v.kernel.ratio_q75);
	TAP_IS_STR(v.reason, "perf: kernel speedup 1.046x is within the noise: pair ratios' lower quartile 0.983 < 1 (spread 14%)",
		   "noise reason");

	/* a pass whose pair ratios spread widely (1.0 to 2.6 the pair): the
	 * spread, in percent of the median ratio, is in the reason */
	static const double wide_r[10] = { 1.0, 1.1, 1.2, 1.4, 1.6, 1.8, 2.0, 2.18, 2.4, 2.6 };
	for (int i = 0; i < 10; i++)
		b[i] = 100000, c[i] = 100000 / wide_r[i];
	gate_verdict_init(&v);
	TAP_OK(gate_perf(b, 10, c, 10, 1.03, 10, GATE_LEVEL_KERNEL, &v), "widely spread pairs, all at least 1.0x: a pass");
	TAP_IS_STR(v.reason, "perf: kernel 1.694x >= gamma 1.03 (pair ratios' lower quartile 1.250, spread 52%)",
		   "... whose reason gives the spread");

	gate_verdict_init(&v);
	TAP_OK(gate_perf(drift_base, 10, drift_cand, 10, 1.03, 10, GATE_LEVEL_KERNEL, &v), "drift shared by the pairs cancels");
	TAP_OK(v.kernel.noise < 1e-9, "drifting pairs have no spread");

	gate_verdict_init(&v);
	TAP_OK(!gate_perf(bimodal_base, 10, bimodal_cand, 10, 1.03, 10, GATE_LEVEL_KERNEL, &v), "bimodal candidate fails");
	TAP_OK(v.kernel.speedup == 1.25, "... with a median speedup of 1.25x");

	for (int i = 0; i < 10; i++) {
		b[i] = clean_base[i];
		c[i] = clean_base[i] / 1.01;
	}
	gate_verdict_init(&v);
	TAP_OK(!gate_perf(b, 10, c, 10, 1.03, 10, GATE_LEVEL_KERNEL, &v), "clean 1.01x fails gamma");
	TAP_IS_STR(v.reason, "perf: kernel speedup 1.010x < gamma 1.03 (baseline 100.2 us, candidate 99.2 us)",
		   "gamma reason");

	for (int i = 0; i < 10; i++) {
		b[i] = 103;
		c[i] = 100;
	}
	gate_verdict_init(&v);
	TAP_OK(gate_perf(b, 10, c, 10, 1.03, 10, GATE_LEVEL_KERNEL, &v), "exactly gamma passes (>=)");
	b[0] = nextafter(103, 0);
	for (int i = 0; i < 10; i++)
		b[i] = b[0];
	gate_verdict_init(&v);
	TAP_OK(!gate_perf(b, 10, c, 10, 1.03, 10, GATE_LEVEL_KERNEL, &v), "just under gamma fails");

	gate_verdict_init(&v);
	TAP_OK(!gate_perf(clean_base, 4, clean_cand, 4, 1.03, 10, GATE_LEVEL_KERNEL, &v), "4 pairs when 10 are asked fail");
	TAP_IS_STR(v.reason, "perf: kernel has 4 timing pairs, gates ask for 10", "few pairs reason");

	gate_verdict_init(&v);
	TAP_OK(!gate_perf(clean_base, 10, clean_cand, 9, 1.03, 3, GATE_LEVEL_MODEL, &v), "unequal sides fail");
	TAP_IS_STR(v.reason, "perf: model samples are not pairs (10 baseline, 9 candidate)", "pairs reason");

	memcpy(c, clean_cand, sizeof c);
	c[3] = 0;
	gate_verdict_init(&v);
	TAP_OK(!gate_perf(clean_base, 10, c, 10, 1.03, 3, GATE_LEVEL_KERNEL, &v), "a zero time fails");
	TAP_IS_STR(v.reason, "perf: kernel sample 3 is not a positive time", "bad sample reason");

	/* the model side of a single-kernel verify */
	for (int i = 0; i < 10; i++)
		c[i] = clean_base[i] / 0.95;
	gate_verdict_init(&v);
	TAP_OK(!gate_no_regression(clean_base, 10, c, 10, 10, &v), "model 0.95x is a regression");
	TAP_IS_STR(v.reason, "perf: model slower: 0.950x, pair ratios' upper quartile 0.950 < 1", "regression reason");

	gate_verdict_init(&v);
	TAP_OK(gate_no_regression(noisy_cand, 10, noisy_base, 10, 10, &v), "model slower only within the noise passes");
	TAP_OK(v.model.speedup < 1, "... though its median speedup is below 1");

	for (int i = 0; i < 10; i++)
		c[i] = clean_base[i] / 1.01;
	gate_verdict_init(&v);
	TAP_OK(gate_no_regression(clean_base, 10, c, 10, 10, &v), "model 1.01x is not a regression");
	TAP_IS_STR(v.reason, "perf: model 1.010x, not slower (pair ratios' upper quartile 1.010)", "no regression reason");
}

static json_t *array_of(const double *x, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_real(x[i]));
	return a;
}

static json_t *perf_obj(const double *kb, const double *kc, const double *mb, const double *mc, size_t n)
{
	json_t *p = json_object();
	if (kb) {
		json_object_set_new(p, "base_ns", array_of(kb, n));
		json_object_set_new(p, "cand_ns", array_of(kc, n));
	}
	if (mb) {
		json_object_set_new(p, "model_base_ns", array_of(mb, n));
		json_object_set_new(p, "model_cand_ns", array_of(mc, n));
	}
	return p;
}

static void test_decide(void)
{
	struct gate_verdict v;
	json_t *n;
	double mc[10];
	for (int i = 0; i < 10; i++)
		mc[i] = clean_base[i] / 1.02;

	TAP_OK(gate_decide(NULL, &cfg, &v) == -1 && !v.pass, "NULL numbers: -1 and fail");
	n = J("[]");
	TAP_OK(gate_decide(n, &cfg, &v) == -1, "an array is not numbers");
	TAP_IS_STR(v.reason, "bad numbers: not a JSON object", "not an object reason");
	json_decref(n);

	n = J("{}");
	TAP_OK(gate_decide(n, &cfg, &v) == 0 && !v.pass && v.gate == GATE_NONE, "no gates: fail, gate none");
	TAP_IS_STR(v.reason, "no gate numbers in the reply", "empty reason");
	json_decref(n);

	/* the whole verify: static, correctness, perf with both levels */
	n = json_object();
	json_object_set_new(n, "static", J("{\"ok\":true,\"reason\":\"kernel keeps its name and signature\"}"));
	json_object_set_new(n, "correctness", corr(5, 1));
	json_object_set_new(n, "perf", perf_obj(clean_base, clean_cand, clean_base, mc, 10));
	TAP_OK(gate_decide(n, &cfg, &v) == 0 && v.pass, "full verify passes");
	TAP_IS_STR(v.reason, "passed static, correctness, perf: kernel 1.250x >= gamma 1.03 (pair ratios' lower quartile 1.250, spread 0%); "
		   "model 1.020x, not slower (pair ratios' upper quartile 1.020)", "full pass reason");
	TAP_IS_INT(v.gates_run, (1u << GATE_STATIC) | (1u << GATE_CORRECTNESS) | (1u << GATE_PERF), "gates run");
	TAP_IS_INT(v.gate, GATE_PERF, "last gate on a pass");

	json_t *vj = gate_verdict_to_json(&v);
	TAP_IS_STR(json_string_value(json_object_get(vj, "verdict")), "pass", "json verdict");
	TAP_OK(json_is_null(json_object_get(vj, "gate")), "json gate null on a pass");
	TAP_OK(json_real_value(json_object_get(json_object_get(json_object_get(vj, "numbers"), "kernel"), "speedup")) > 1.24,
	       "json kernel speedup");
	TAP_OK(!json_object_get(json_object_get(vj, "numbers"), "rmse_cand"), "json leaves out numbers not computed");
	json_decref(vj);

	/* static fails first, whatever follows */
	json_object_set_new(n, "static", J("{\"ok\":false,\"reason\":\"import of 'os' is not allowed\"}"));
	gate_decide(n, &cfg, &v);
	TAP_OK(!v.pass && v.gate == GATE_STATIC, "static failure stops the cascade");
	TAP_IS_STR(v.reason, "static: import of 'os' is not allowed", "static reason");
	TAP_IS_INT(v.gates_run, 1u << GATE_STATIC, "nothing after static ran");
	vj = gate_verdict_to_json(&v);
	TAP_IS_STR(json_string_value(json_object_get(vj, "gate")), "static", "json names the failing gate");
	json_decref(vj);
	json_object_set_new(n, "static", J("{\"reason\":\"x\"}"));
	gate_decide(n, &cfg, &v);
	TAP_IS_STR(v.reason, "static: bad numbers: \"ok\" is not a boolean", "static bad numbers");
	json_object_del(n, "static");

	/* correctness fails on tolerance: the fp64 fallback decides */
	json_t *c = corr(5, 1);
	set_err(c, 2, 0, 3.1e-3, false);
	json_object_set_new(n, "correctness", c);
	gate_decide(n, &cfg, &v);
	TAP_OK(!v.pass && v.gate == GATE_CORRECTNESS, "tolerance failure without fp64 numbers fails correctness");
	vj = gate_verdict_to_json(&v);
	json_t *vn = json_object_get(vj, "numbers");
	TAP_OK(json_integer_value(json_object_get(vn, "seed")) == 2 && json_is_integer(json_object_get(vn, "seed")) &&
	       json_is_integer(json_object_get(vn, "output")) && json_integer_value(json_object_get(vn, "output")) == 0,
	       "json names the failing seed and output (2, 0)");
	json_decref(vj);
	json_object_set_new(n, "fp64", J("{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":4e-5,\"rmse_base\":3e-5}]}"));
	gate_decide(n, &cfg, &v);
	TAP_OK(v.pass, "fp64 rescues a tolerance failure");
	TAP_OK(strncmp(v.reason, "passed correctness, fp64, perf: ", 32) == 0, "pass reason lists fp64");
	TAP_OK(v.max_abs == 3.1e-3 && v.rmse_cand == 4e-5, "both gates' numbers kept");
	cfg.fp64_fallback = false;
	gate_decide(n, &cfg, &v);
	TAP_OK(!v.pass && v.gate == GATE_CORRECTNESS, "fp64_fallback = false: no rescue");
	cfg.fp64_fallback = true;
	json_object_set_new(n, "fp64", J("{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":9e-5,\"rmse_base\":3e-5}]}"));
	gate_decide(n, &cfg, &v);
	TAP_OK(!v.pass && v.gate == GATE_FP64, "fp64 failure names fp64");
	TAP_IS_STR(v.reason, "fp64: rmse to fp64 9e-05 > 2 x baseline's 3e-05 + tol/10 1e-05", "fp64 cascade reason");

	c = corr(5, 1);
	set_err(c, 2, 0, 3.1e-3, false);
	json_object_set_new(out_of(c, 0, 0), "aliases_input", json_true());
	json_object_set_new(n, "correctness", c);
	json_object_set_new(n, "fp64", J("{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":1e-6,\"rmse_base\":3e-5}]}"));
	gate_decide(n, &cfg, &v);
	TAP_OK(!v.pass && v.gate == GATE_CORRECTNESS, "fp64 never rescues aliasing");

	/* correctness passes: fp64 numbers are not consulted; perf decides */
	json_object_set_new(n, "correctness", corr(5, 1));
	json_object_set_new(n, "fp64", J("{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":1,\"rmse_base\":1e-6}]}"));
	json_object_set_new(n, "perf", perf_obj(noisy_base, noisy_cand, NULL, NULL, 10));
	gate_decide(n, &cfg, &v);
	TAP_OK(!v.pass && v.gate == GATE_PERF, "noisy kernel fails perf after correctness");
	TAP_IS_INT(v.gates_run, (1u << GATE_CORRECTNESS) | (1u << GATE_PERF), "fp64 skipped when correctness passed");

	for (int i = 0; i < 10; i++)
		mc[i] = clean_base[i] / 0.9;
	json_object_set_new(n, "perf", perf_obj(clean_base, clean_cand, clean_base, mc, 10));
	gate_decide(n, &cfg, &v);
	TAP_OK(!v.pass && v.gate == GATE_PERF, "fast kernel, slower model: fail");
	TAP_IS_STR(v.reason, "perf: model slower: 0.900x, pair ratios' upper quartile 0.900 < 1", "model regression in the cascade");

	/* a stitch: model samples only, gamma applies to the model */
	for (int i = 0; i < 10; i++)
		mc[i] = clean_base[i] / 1.02;
	json_object_set_new(n, "perf", perf_obj(NULL, NULL, clean_base, mc, 10));
	gate_decide(n, &cfg, &v);
	TAP_OK(!v.pass, "stitch at 1.02x fails gamma 1.03");
	TAP_IS_STR(v.reason, "perf: model speedup 1.020x < gamma 1.03 (baseline 100.2 us, candidate 98.2 us)", "stitch gamma reason");
	json_object_set_new(n, "perf", perf_obj(NULL, NULL, clean_base, clean_cand, 10));
	gate_decide(n, &cfg, &v);
	TAP_OK(v.pass && v.model.pairs == 10 && v.kernel.pairs == 0, "stitch at 1.25x passes on the model");

	json_object_set_new(n, "perf", J("{\"base_ns\":[1,2,3]}"));
	gate_decide(n, &cfg, &v);
	TAP_IS_STR(v.reason, "perf: bad numbers: base_ns without cand_ns", "half a level reason");
	json_object_set_new(n, "perf", J("{\"base_ns\":[1,2,3],\"cand_ns\":[1,\"x\",3]}"));
	gate_decide(n, &cfg, &v);
	TAP_IS_STR(v.reason, "perf: bad numbers: base_ns and cand_ns must be arrays of numbers", "non-numeric samples reason");
	json_object_set_new(n, "perf", J("{}"));
	gate_decide(n, &cfg, &v);
	TAP_IS_STR(v.reason, "perf: bad numbers: no timing samples", "no samples reason");
	json_object_set_new(n, "perf", J("{\"base_ns\":[100,100,100,100,100,100,100,100,100,100],"
					 "\"cand_ns\":[50,50,50,50,50,50,50,50,50,50]}"));
	gate_decide(n, &cfg, &v);
	TAP_OK(v.pass, "integer samples are accepted");
	json_decref(n);

	n = J("{\"fp64\":{\"outputs\":[]}}");
	gate_decide(n, &cfg, &v);
	TAP_IS_STR(v.reason, "fp64: bad numbers: fp64 without correctness", "fp64 alone reason");
	json_decref(n);

	/* defaults when cfg is NULL */
	n = json_object();
	json_object_set_new(n, "correctness", corr(4, 1));
	gate_decide(n, NULL, &v);
	TAP_IS_STR(v.reason, "correctness: 4 seeds checked, gates ask for 5", "NULL cfg uses the defaults");
	json_decref(n);
}

/*
 * gate_decide's status: a verdict, passing or failing at any gate, is a
 * result (0, out filled, its gate named); -1 is for numbers that are not an
 * object alone. A failing verdict never reads as an error, so a caller that
 * tests the status < 0 still records the verdict and its reason.
 */
static void test_decide_status(void)
{
	static const struct { const char *numbers; bool pass; enum gate_id gate; } cases[] = {
		{ "{}", false, GATE_NONE },
		{ "{\"precision\":{}}", false, GATE_NONE },
		{ "{\"static\":{\"ok\":false,\"reason\":\"import of 'os' is not allowed\"}}", false, GATE_STATIC },
		{ "{\"static\":{\"ok\":true,\"reason\":\"kernel keeps its name\"}}", true, GATE_STATIC },
		{ "{\"fp64\":{\"outputs\":[]}}", false, GATE_FP64 },
		{ "{\"fp64\":{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":1e-9,\"rmse_base\":1e-6}]}}",
		  false, GATE_FP64 },
		{ "{\"static\":{\"ok\":true,\"reason\":\"r\"},\"fp64\":{\"outputs\":[]}}", false, GATE_FP64 },
		{ "{\"correctness\":{}}", false, GATE_CORRECTNESS },
		{ "{\"perf\":{}}", false, GATE_PERF },
		{ "{\"perf\":{\"base_ns\":[1,2,3]}}", false, GATE_PERF },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct gate_verdict v;
		json_t *n = J(cases[i].numbers);
		int rc = gate_decide(n, &cfg, &v);
		if (rc == 0 && v.pass == cases[i].pass && v.gate == cases[i].gate && v.reason[0])
			right++;
		else
			tap_diag("%s: status %d, pass %d, gate %d, reason '%s'", cases[i].numbers, rc, v.pass, (int)v.gate,
				 v.reason);
		json_decref(n);
	}
	/* correctness beyond tolerance only, with fp64 numbers that fail, pass, or are not read */
	static const struct { const char *fp64; bool fallback; bool pass; enum gate_id gate; } fb[] = {
		{ "{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":9e-5,\"rmse_base\":3e-5}]}", true, false,
		  GATE_FP64 },
		{ "{\"outputs\":[]}", true, false, GATE_FP64 },
		{ "{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_base\":3e-5}]}", true, false, GATE_FP64 },
		{ "{\"outputs\":[{\"index\":0,\"rmse_cand\":1e-9,\"rmse_base\":3e-5}]}", true, false, GATE_FP64 },
		{ "{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":4e-5,\"rmse_base\":3e-5}]}", true, true,
		  GATE_FP64 },
		{ "{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":4e-5,\"rmse_base\":3e-5}]}", false, false,
		  GATE_CORRECTNESS },
	};
	int nright = right;
	for (size_t i = 0; i < sizeof fb / sizeof *fb; i++) {
		struct gate_verdict v;
		json_t *n = json_object(), *c = corr(5, 1);
		set_err(c, 2, 0, 3.1e-3, false);
		json_object_set_new(n, "correctness", c);
		json_object_set_new(n, "fp64", J(fb[i].fp64));
		cfg.fp64_fallback = fb[i].fallback;
		int rc = gate_decide(n, &cfg, &v);
		if (rc == 0 && v.pass == fb[i].pass && v.gate == fb[i].gate && v.reason[0])
			right++;
		else
			tap_diag("fp64 fallback case %zu: status %d, pass %d, gate %d, reason '%s'", i, rc, v.pass, (int)v.gate,
				 v.reason);
		json_decref(n);
	}
	cfg.fp64_fallback = true;
	TAP_IS_INT(right - nright, (int)(sizeof fb / sizeof *fb), "gate_decide: the fp64 fallback's verdict, passing or "
		   "failing, is a result too (status 0)");
	right = nright;
	TAP_IS_INT(right, (int)(sizeof cases / sizeof *cases),
		   "gate_decide: a verdict that fails at any gate (fp64 numbers without correctness too) is a result, "
		   "status 0 with its gate and reason");
	static const char *const not_objects[] = { "[]", "[{\"fp64\":{}}]", "\"fp64\"", "1", "null" };
	right = 0;
	for (size_t i = 0; i < sizeof not_objects / sizeof *not_objects; i++) {
		struct gate_verdict v;
		json_t *n = json_loads(not_objects[i], JSON_DECODE_ANY, NULL);
		if (gate_decide(n, &cfg, &v) == -1 && !v.pass && v.gate == GATE_NONE)
			right++;
		json_decref(n);
	}
	TAP_IS_INT(right, 5, "gate_decide: numbers that are not an object are an error, status -1");
}

static void test_misc(void)
{
	char buf[32];
	TAP_IS_STR(gate_fmt_num(buf, sizeof buf, 1e-4), "1e-04", "fmt 1e-4");
	TAP_IS_STR(gate_fmt_num(buf, sizeof buf, 2.5e-4), "2.5e-04", "fmt 2.5e-4");
	TAP_IS_STR(gate_fmt_num(buf, sizeof buf, 0), "0", "fmt 0");
	TAP_IS_STR(gate_name(GATE_CORRECTNESS), "correctness", "gate name");
	TAP_IS_STR(gate_name((enum gate_id)42), "none", "out of range gate name");
	TAP_IS_INT(gate_dtype_parse("torch.bfloat16"), GATE_DTYPE_HALF, "torch.bfloat16 is half");
	TAP_IS_INT(gate_dtype_parse("float64"), GATE_DTYPE_FP32, "float64 takes fp32 tolerances");
	TAP_IS_INT(gate_dtype_parse(NULL), GATE_DTYPE_UNKNOWN, "NULL dtype");
	struct gate_verdict v;
	gate_verdict_init(&v);
	gate_reason(&v, "a\nb");
	TAP_IS_STR(v.reason, "a b", "reasons stay on one line");
}

/* the strict precision rule, with numbers measured on the H200: the small
 * softmax's baseline rmse to fp64 and its output scale (tests/gpu/cheats.py) */
static void test_precision(void)
{
	struct gate_verdict v;
	json_t *n;
	static const char *honest = "{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":3.1e-10,\"rmse_base\":2.6e-10,\"ref_rms\":3.4e-4}]}";
	static const char *half = "{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":1.1e-07,\"rmse_base\":2.6e-10,\"ref_rms\":3.4e-4}]}";

	n = J(honest);
	gate_verdict_init(&v);
	TAP_OK(gate_precision_json(n, &cfg, &v), "precision: a reordered reduction is as precise");
	json_decref(n);
	n = J(half);
	gate_verdict_init(&v);
	TAP_OK(!gate_precision_json(n, &cfg, &v) && v.gate == GATE_FP64, "precision: half-precision math fails gate 3");
	TAP_IS_STR(v.reason, "fp64: less precise than the baseline under the strict policy: rmse to fp64 1.1e-07 > 2 x baseline's 2.6e-10 + 4 ulp 1.6e-10 (output 0)",
		   "precision: reason");
	json_decref(n);
	n = J("{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":1e-9}]}");
	gate_verdict_init(&v);
	TAP_OK(!gate_precision_json(n, &cfg, &v) && strstr(v.reason, "bad numbers"), "precision: missing fields are bad numbers");
	json_decref(n);
	/* each field alone missing is bad numbers too */
	static const char *one_missing[] = {
		"{\"outputs\":[{\"index\":0,\"rmse_cand\":3.1e-10,\"rmse_base\":2.6e-10,\"ref_rms\":3.4e-4}]}",
		"{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_base\":2.6e-10,\"ref_rms\":3.4e-4}]}",
		"{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":3.1e-10,\"ref_rms\":3.4e-4}]}",
		"{\"outputs\":[{\"index\":0,\"dtype\":\"float32\",\"rmse_cand\":3.1e-10,\"rmse_base\":2.6e-10}]}",
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof one_missing / sizeof *one_missing; i++) {
		n = J(one_missing[i]);
		gate_verdict_init(&v);
		bad += !gate_precision_json(n, &cfg, &v) && strstr(v.reason, "bad numbers") != NULL;
		json_decref(n);
	}
	TAP_IS_INT(bad, 4, "precision: dtype, rmse_cand, rmse_base or ref_rms missing alone: bad numbers each");
	n = J("{\"outputs\":[{\"index\":0,\"dtype\":\"bfloat16\",\"rmse_cand\":2e-3,\"rmse_base\":1e-3,\"ref_rms\":1.0}]}");
	gate_verdict_init(&v);
	TAP_OK(gate_precision_json(n, &cfg, &v), "precision: bf16 takes m = 3 and bf16's ulp");
	json_decref(n);

	/* in the cascade: within tolerance, but less precise, fails under strict only */
	n = json_object();
	json_object_set_new(n, "static", J("{\"ok\":true,\"reason\":\"config only\"}"));
	json_object_set_new(n, "correctness", corr(5, 1));
	json_object_set_new(n, "precision", J(half));
	TAP_OK(gate_decide(n, &cfg, &v) == 0 && !v.pass && v.gate == GATE_FP64, "strict: a within-tolerance half-precision candidate fails at fp64");
	struct kopt_gates loose = cfg;
	loose.precision = KOPT_PRECISION_LOOSE;
	TAP_OK(gate_decide(n, &loose, &v) == 0 && v.pass, "loose: the same candidate passes");
	json_decref(n);
}

/* the stitch of softmax on the H200, in round figures: a one-kernel model
 * whose kernel went from 300 to 289 us, while the swapped kernel object's
 * launch cost the host 24 us less than Inductor's own */
static void test_host_held(void)
{
	double mb[10], mc[10], db[10], dc[10];
	for (int i = 0; i < 10; i++) {
		db[i] = 300000 + 500 * (i % 3);
		dc[i] = 289000 + 500 * (i % 3);
		mb[i] = db[i] + 96000;  /* host 96 us */
		mc[i] = dc[i] + 72000;  /* host 72 us: the artifact */
	}
	json_t *n = json_object(), *p = perf_obj(NULL, NULL, mb, mc, 10);
	json_object_set_new(n, "perf", p);
	struct gate_verdict v;
	gate_decide(n, &cfg, &v);
	TAP_OK(v.pass && !v.host_held && v.model.speedup > 1.09, "without device spans: the host's artifact passes as 1.09x (%.3f)",
	       v.model.speedup);
	json_object_set_new(p, "model_base_dev_ns", array_of(db, 10));
	json_object_set_new(p, "model_cand_dev_ns", array_of(dc, 10));
	gate_decide(n, &cfg, &v);
	TAP_OK(v.host_held && !v.pass && fabs(v.model.speedup - 396.5 / 385.5) < 0.002,
	       "with them, the candidate keeps the baseline's host time: %.3fx, below gamma", v.model.speedup);
	TAP_OK(strstr(v.reason, "(model: host time held at the baseline's)") != NULL, "the reason says so: %s", v.reason);
	TAP_OK(fabs(v.model.cand_median - 385500) < 1, "the held candidate's median is the baseline's less the device time saved");
	/* a span that is not a positive time, on either side, or one that
	 * would leave a held sample of no time: the samples stay as measured */
	static const char *const bad[] = { "0", "-1", "0.0", "\"5\"", "null", "true" };
	int stayed = 0, nbad = 0;
	for (int side = 0; side < 2; side++)
		for (size_t k = 0; k < sizeof bad / sizeof *bad; k++, nbad++) {
			json_t *jb = array_of(db, 10), *jc = array_of(dc, 10);
			json_array_set_new(side ? jc : jb, 3, json_loads(bad[k], JSON_DECODE_ANY, NULL));
			json_object_set_new(p, "model_base_dev_ns", jb);
			json_object_set_new(p, "model_cand_dev_ns", jc);
			gate_decide(n, &cfg, &v);
			stayed += !v.host_held && v.pass;
			if (v.host_held || !v.pass)
				tap_diag("%s span %s: held %d, pass %d", side ? "candidate's" : "baseline's", bad[k], v.host_held,
					 v.pass);
		}
	TAP_IS_INT(stayed, nbad, "a span that is not a positive time, either side's: the samples stay as measured");
	double long_db[10];
	for (int i = 0; i < 10; i++)
		long_db[i] = mb[i] + 1000; /* a device span past the model's own time */
	json_object_set_new(p, "model_base_dev_ns", array_of(long_db, 10));
	json_object_set_new(p, "model_cand_dev_ns", array_of(dc, 10));
	dc[0] = 1;
	json_t *one = array_of(dc, 10);
	json_object_set_new(p, "model_cand_dev_ns", one);
	gate_decide(n, &cfg, &v);
	TAP_OK(!v.host_held && v.pass, "spans that would hold a sample at no time or less: the samples stay as measured");
	dc[0] = 289000;
	json_object_set_new(p, "model_base_dev_ns", array_of(db, 10));
	dc[3] = -1;
	json_object_set_new(p, "model_cand_dev_ns", array_of(dc, 10));
	json_object_set_new(p, "model_cand_dev_ns", array_of(dc, 9));
	gate_decide(n, &cfg, &v);
	TAP_OK(!v.host_held, "spans that are not pairs: the samples stay as measured");
	json_decref(n);
}

/* a worker that stops early: correctness at the first seed that fails for
 * certain, perf once the pair ratios settle the question (issue 16) */
static void test_early_exit(void)
{
	struct gate_verdict v;
	bool tol;
	json_t *c = corr(2, 1);
	json_object_set_new(out_of(c, 1, 0), "nan_mismatch", json_true());
	TAP_OK(!run_corr(c, &v, &tol) && !tol, "2 of 5 seeds, the second with NaN elsewhere: fails");
	TAP_IS_STR(v.reason, "correctness: output 0 has NaN in other places than the baseline at seed 1",
		   "the reason is the failing seed's, not the seed count");
	c = corr(3, 1);
	set_err(c, 2, 0, 5e-3, false);
	TAP_OK(!run_corr(c, &v, &tol), "3 of 5 seeds with an error beyond tolerance fails");
	TAP_OK(!tol, "and is not left to the fp64 fallback: the skipped seeds were never compared");
	TAP_IS_STR(v.reason, "correctness: max abs error 5e-03 > atol 1e-04 + rtol 1e-04 * |ref| at seed 2",
		   "tolerance reason among fewer seeds");
	c = corr(5, 1);
	set_err(c, 2, 0, 5e-3, false);
	TAP_OK(!run_corr(c, &v, &tol) && tol, "every seed, an error beyond tolerance: the fallback may rescue it");

	struct kopt_gates g = cfg;
	g.repeats = 30;
	TAP_IS_INT((int)gate_min_pairs(&g), GATE_SEQ_MIN_PAIRS, "30 repeats: the sequential minimum");
	g.repeats = 4;
	TAP_IS_INT((int)gate_min_pairs(&g), 4, "4 repeats: all of them");
	g.repeats = 1;
	TAP_IS_INT((int)gate_min_pairs(&g), 3, "never fewer than 3");
	g.repeats = 30;
	double mc[10];
	for (int i = 0; i < 10; i++)
		mc[i] = clean_base[i] / 1.02;
	json_t *n = json_object();
	json_object_set_new(n, "perf", perf_obj(clean_base, clean_cand, clean_base, mc, 6));
	TAP_OK(gate_decide(n, &g, &v) == 0 && v.pass && v.kernel.pairs == 6, "6 of 30 pairs, one-sided: decided");
	TAP_OK(strstr(v.reason, ", decided after 6 of 30 pairs") != NULL, "the reason says how many pairs decided it: %s", v.reason);
	json_decref(n);
	n = json_object();
	json_object_set_new(n, "perf", perf_obj(clean_base, clean_cand, clean_base, mc, 5));
	TAP_OK(gate_decide(n, &g, &v) == 0 && !v.pass, "5 pairs are too few");
	TAP_IS_STR(v.reason, "perf: kernel has 5 timing pairs, gates ask for 6", "few pairs reason");
	json_decref(n);
	n = json_object();
	json_object_set_new(n, "perf", perf_obj(clean_base, clean_cand, clean_base, mc, 10));
	g.repeats = 10;
	gate_decide(n, &g, &v);
	TAP_OK(v.pass && strstr(v.reason, "decided after") == NULL, "every pair run: the reason does not count them");
	json_decref(n);
}

/* the compiled baseline against eager, and the float64 reference where they
 * differ (issue 17): the three cases, in recorded-shape numbers. One output
 * at seed 1 beside a clean seed 0; rc/re < 0 leave the float64 fields out. */
struct bout {
	const char *dtype;
	bool shape, nan, allclose;
	double max_abs, rc, re;
	bool e64, c64;
};

static json_t *bout_json(int index, const struct bout *o)
{
	json_t *x = json_pack("{s:i, s:s, s:b, s:b, s:b, s:b, s:f, s:f, s:f, s:b}", "index", index, "dtype", o->dtype,
			      "shape_mismatch", o->shape, "dtype_mismatch", 0, "nan_mismatch", o->nan,
			      "inf_mismatch", 0, "max_abs", o->max_abs, "max_rel", o->max_abs / 3,
			      "ref_max_abs", 3.0, "allclose", o->allclose);
	if (o->rc >= 0) {
		json_object_set_new(x, "rmse_compiled", json_real(o->rc));
		json_object_set_new(x, "rmse_eager", json_real(o->re));
		json_object_set_new(x, "eager_close64", json_boolean(o->e64));
		json_object_set_new(x, "compiled_close64", json_boolean(o->c64));
	}
	return x;
}

static json_t *check_of(const struct bout *outs, int n)
{
	static const struct bout clean = { "float32", false, false, true, 2e-6, -1, -1, false, false };
	json_t *seed0 = json_pack("{s:i, s:[o]}", "seed", 0, "outputs", bout_json(0, &clean));
	json_t *o1 = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(o1, bout_json(i, &outs[i]));
	return json_pack("{s:[o, {s:i, s:o}]}", "seeds", seed0, "seed", 1, "outputs", o1);
}

static enum gate_baseline_status judge_one(struct bout o, char *why, size_t n)
{
	json_t *c = check_of(&o, 1);
	enum gate_baseline_status st = gate_baseline(c, &cfg, why, n);
	json_decref(c);
	return st;
}

static void test_baseline(void)
{
	char why[GATE_REASON_MAX];
	TAP_IS_INT(gate_baseline(NULL, &cfg, why, sizeof why), GATE_BASE_UNCHECKED, "no check: unchecked");
	TAP_OK(gate_baseline_usable(GATE_BASE_UNCHECKED), "an unchecked baseline is still usable (older worker)");
	TAP_IS_STR(why, "compiled baseline not checked against eager", "unchecked reason");

	TAP_IS_INT(judge_one((struct bout){ "float32", false, false, true, 5e-6, -1, -1, false, false }, why, sizeof why),
		   GATE_BASE_AGREES, "allclose everywhere: agrees");
	TAP_IS_STR(why, "compiled baseline agrees with eager over 2 seeds (max abs error 5e-06)", "agrees reason");
	/* differs from eager, but as close to float64 as eager: a reordering */
	TAP_IS_INT(judge_one((struct bout){ "float32", false, false, false, 3e-3, 2e-4, 1.5e-4, false, false }, why, sizeof why),
		   GATE_BASE_ACCURATE, "2e-4 <= 2 x 1.5e-4 + 1e-5: accurate");
	TAP_OK(gate_baseline_usable(GATE_BASE_ACCURATE), "an accurate baseline is usable");
	/* 1. the compile is wrong and eager is right */
	TAP_IS_INT(judge_one((struct bout){ "float32", false, false, false, 0.5, 0.1, 2e-7, true, false }, why, sizeof why),
		   GATE_BASE_WRONG, "eager matches float64, the compile does not: wrong");
	TAP_OK(!gate_baseline_usable(GATE_BASE_WRONG), "a wrong baseline is not usable");
	TAP_IS_STR(why, "compiled baseline disagrees with eager: output 0 differs from eager by max abs error 5e-01 at seed 1, "
		   "and eager matches the float64 reference (rmse: compiled 1e-01, eager 2e-07)", "wrong reason");
	/* 2. ill-conditioned: neither is close to float64 */
	TAP_IS_INT(judge_one((struct bout){ "float32", false, false, false, 1.9e16, 3e15, 1e15, false, false }, why, sizeof why),
		   GATE_BASE_ILL, "both far from float64: ill-conditioned");
	TAP_OK(!gate_baseline_usable(GATE_BASE_ILL), "an ill-conditioned model is not optimized");
	TAP_OK(strncmp(why, "ill-conditioned: output 0: eager and the compiled code both disagree", 68) == 0, "ill reason: %s", why);
	/* 3. the compile is the one that matches float64 */
	TAP_IS_INT(judge_one((struct bout){ "float32", false, false, false, 0.5, 1e-7, 0.1, false, true }, why, sizeof why),
		   GATE_BASE_ACCURATE, "the compile matches float64, eager does not: accurate");
	/* NaN where eager has none, eager right: wrong even though the finite rmse looks fine */
	TAP_IS_INT(judge_one((struct bout){ "float32", false, true, false, 1e-6, 1e-7, 1e-7, true, false }, why, sizeof why),
		   GATE_BASE_WRONG, "NaN in other places: not rescued by the rmse rule");
	/* another shape: wrong, whatever the rest says */
	TAP_IS_INT(judge_one((struct bout){ "float32", true, false, false, 0, -1, -1, false, false }, why, sizeof why),
		   GATE_BASE_WRONG, "another shape: wrong");
	TAP_IS_STR(why, "compiled baseline disagrees with eager: output 0 has another shape than eager's at seed 1", "shape reason");
	/* wrong outranks ill-conditioned */
	struct bout two[2] = { { "float32", false, false, false, 9, 3, 1, false, false },
			       { "float16", false, false, false, 0.5, 0.2, 0.01, true, false } };
	json_t *c = check_of(two, 2);
	TAP_IS_INT(gate_baseline(c, &cfg, why, sizeof why), GATE_BASE_WRONG, "one output wrong, another ill: wrong");
	TAP_OK(strstr(why, "output 1") != NULL, "the reason names the wrong output: %s", why);
	json_decref(c);
	/* an accurate output before an ill-conditioned one, or a wrong one:
	 * the worse decides (the order of the ranks, not of the outputs) */
	struct bout acc_ill[2] = { { "float32", false, false, false, 3e-3, 2e-4, 1.5e-4, false, false },
				   { "float32", false, false, false, 1.9e16, 3e15, 1e15, false, false } };
	c = check_of(acc_ill, 2);
	TAP_IS_INT(gate_baseline(c, &cfg, why, sizeof why), GATE_BASE_ILL, "one output accurate, the next ill: ill-conditioned");
	json_decref(c);
	struct bout acc_wrong[2] = { { "float32", false, false, false, 3e-3, 2e-4, 1.5e-4, false, false },
				     { "float32", false, false, false, 0.5, 0.1, 2e-7, true, false } };
	c = check_of(acc_wrong, 2);
	TAP_IS_INT(gate_baseline(c, &cfg, why, sizeof why), GATE_BASE_WRONG, "one output accurate, the next wrong: wrong");
	json_decref(c);
	/* two outputs equally wrong: the reason names the first */
	struct bout both[2] = { { "float32", false, false, false, 0.5, 0.1, 2e-7, true, false },
				{ "float32", false, false, false, 0.7, 0.2, 2e-7, true, false } };
	c = check_of(both, 2);
	TAP_IS_INT(gate_baseline(c, &cfg, why, sizeof why), GATE_BASE_WRONG, "two outputs wrong: wrong");
	TAP_OK(strstr(why, "output 0 differs from eager by max abs error 5e-01") != NULL,
	       "the reason names the first of the outputs equally wrong: %s", why);
	json_decref(c);
	/* the half multiplier: 0.029 <= 3 x 0.01 + 1e-3; in float32, m = 2 */
	TAP_IS_INT(judge_one((struct bout){ "bfloat16", false, false, false, 0.5, 0.029, 0.01, true, false }, why, sizeof why),
		   GATE_BASE_ACCURATE, "half types: m = 3");
	TAP_IS_INT(judge_one((struct bout){ "float32", false, false, false, 0.5, 0.029, 0.01, true, false }, why, sizeof why),
		   GATE_BASE_WRONG, "the same numbers in float32: m = 2, wrong");
	TAP_IS_STR(gate_baseline_name(GATE_BASE_ILL), "ill-conditioned", "status names");
}

int main(void)
{
	gate_config_default(&cfg);
	test_baseline();
	test_early_exit();
	test_host_held();
	test_tolerance();
	test_structural();
	test_fp64();
	test_perf();
	test_decide();
	test_decide_status();
	test_misc();
	test_precision();
	return tap_done();
}
