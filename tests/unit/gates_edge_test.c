/*
 * tests/unit/gates_edge_test.c: the gates at the edges the design names
 * (gates/gates.h), each worked out by hand:
 *   - strict precision: a candidate's RMSE to fp64 may be m times the
 *     baseline's plus 4 ulps of the outputs' scale, m = 2 for fp32 and 3
 *     for half types;
 *   - the noise rule: the lower quartile of the pairs' ratios must be at
 *     least 1, and exactly 1 passes;
 *   - gate 4's other edges: gamma itself, the fewest pairs, the times'
 *     units, the quartiles' interpolation, no regression's two tests;
 *   - the compiled baseline's rmse rule to the last bit; which gates ran.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gates/gates.h"
#include "../tap.h"

static int precision(const char *dtype, double cand, double base)
{
	char text[256];
	/* ref_rms 1e-9: the ulp term (4 x 2^-10 x 1e-9 at most) is far below the margins here */
	snprintf(text, sizeof text, "{\"outputs\":[{\"index\":0,\"dtype\":\"%s\",\"rmse_cand\":%.17g,\"rmse_base\":%.17g,\"ref_rms\":1e-9}]}",
		 dtype, cand, base);
	json_t *n = json_loads(text, 0, NULL);
	struct kopt_gates cfg;
	gate_config_default(&cfg);
	struct gate_verdict v;
	gate_verdict_init(&v);
	int ok = gate_precision_json(n, &cfg, &v);
	json_decref(n);
	return ok;
}

/* gate 4 with every candidate sample c and baseline sample b */
static bool perf_flat(double b, double c, size_t n, size_t min_pairs, double gamma, struct gate_verdict *v)
{
	double base[16], cand[16];
	for (size_t i = 0; i < n; i++) {
		base[i] = b;
		cand[i] = c;
	}
	gate_verdict_init(v);
	return gate_perf(base, n, cand, n, gamma, min_pairs, GATE_LEVEL_KERNEL, v);
}

/* gate 4's edges: a speedup of exactly gamma passes, the fewest pairs the
 * gates ask for pass and one fewer fail, times said in ns under 10 us,
 * in us under 10 ms and in ms from there; the quartiles interpolated to
 * the value; no regression: slower in the medians and the upper
 * quartile both, or it passes */
static void perf_edges(void)
{
	struct gate_verdict v;
	TAP_OK(perf_flat(125, 100, 4, 4, 1.25, &v) && v.kernel.speedup == 1.25 && v.kernel.pairs == 4,
	       "perf: a speedup of exactly gamma passes (%s)", v.reason);
	TAP_OK(!perf_flat(125, 100, 3, 4, 1.25, &v) &&
	       !strcmp(v.reason, "perf: kernel has 3 timing pairs, gates ask for 4"),
	       "perf: one pair fewer than the gates ask for fails, and says so (%s)", v.reason);
	static const struct { double b, c; const char *says; } fmt[] = {
		{ 9999, 9999, "(baseline 9999 ns, candidate 9999 ns)" },
		{ 10000, 10000, "(baseline 10.0 us, candidate 10.0 us)" },
		{ 9999000, 9999000, "(baseline 9999.0 us, candidate 9999.0 us)" },
		{ 10000000, 10000000, "(baseline 10.00 ms, candidate 10.00 ms)" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof fmt / sizeof *fmt; i++) {
		bool pass = perf_flat(fmt[i].b, fmt[i].c, 4, 3, 1.03, &v);
		if (!pass && strstr(v.reason, "perf: kernel speedup 1.000x < gamma 1.03 ") && strstr(v.reason, fmt[i].says))
			right++;
		else
			tap_diag("%s", v.reason);
	}
	TAP_IS_INT(right, 4, "perf: times said in ns below 10 us, in us below 10 ms, in ms from 10 ms");
	double b[] = { 100, 100, 100, 100 }, c[] = { 50, 80, 100, 200 }, r[] = { 0.5, 1.0, 1.25, 2.0 };
	struct gate_timing t;
	int st = gate_timing_stats(b, c, 4, &t);
	TAP_OK(st == 0 && t.pairs == 4 && t.base_median == 100 && t.cand_median == 90 &&
	       fabs(t.ratio_q25 - (r[0] + 0.75 * (r[1] - r[0]))) < 1e-12 &&
	       fabs(t.ratio_median - (r[1] + 0.5 * (r[2] - r[1]))) < 1e-12 &&
	       fabs(t.ratio_q75 - (r[2] + 0.25 * (r[3] - r[2]))) < 1e-12 &&
	       fabs(t.noise - (t.ratio_q75 - t.ratio_q25) / t.ratio_median) < 1e-12,
	       "timing: medians and the ratios' quartiles interpolated between order statistics (q25 %g, q75 %g)",
	       t.ratio_q25, t.ratio_q75);
	double z[] = { 100, 0, 100, 100 };
	TAP_OK(gate_timing_stats(b, z, 4, &t) == -1 && gate_timing_stats(b, c, 0, &t) == -1,
	       "timing: a sample of 0 or no samples: no statistics");
	/* and t zeroed (pairs 0: not measured), not the last call's numbers
	 * left or anything else */
	int zeroed = 0;
	const double *cands[] = { z, c };
	size_t ns[] = { 4, 0 };
	for (int i = 0; i < 2; i++) {
		gate_timing_stats(b, c, 4, &t);
		gate_timing_stats(b, cands[i], ns[i], &t);
		zeroed += t.pairs == 0 && t.base_median == 0 && t.cand_median == 0 && t.speedup == 0 &&
			  t.ratio_q25 == 0 && t.ratio_median == 0 && t.ratio_q75 == 0 && t.noise == 0;
	}
	TAP_IS_INT(zeroed, 2, "timing: a sample of 0 or no samples: the statistics zeroed");
	double one[] = { 100 };
	TAP_OK(gate_timing_stats(one, one, 1, &t) == 0 && t.ratio_q25 == 1 && t.ratio_q75 == 1 && t.noise == 0,
	       "timing: one pair is its own every quartile");
	/* no regression: ratios 0.5 0.5 0.5 1.0 (q75 0.625) fail; 0.5 0.5 1.0 1.0
	 * (q75 exactly 1) pass though the medians are slower */
	double nb[] = { 50, 50, 50, 100 }, nb2[] = { 50, 50, 100, 100 }, nc[] = { 100, 100, 100, 100 };
	gate_verdict_init(&v);
	TAP_OK(!gate_no_regression(nb, 4, nc, 4, 4, &v) &&
	       !strcmp(v.reason, "perf: model slower: 0.500x, pair ratios' upper quartile 0.625 < 1"),
	       "no regression: slower in the medians and the upper quartile fails (%s)", v.reason);
	gate_verdict_init(&v);
	TAP_OK(gate_no_regression(nb2, 4, nc, 4, 4, &v) && v.model.speedup == 0.75 && v.model.ratio_q75 == 1,
	       "no regression: an upper quartile of exactly 1 passes, medians slower or not (%s)", v.reason);
	gate_verdict_init(&v);
	TAP_OK(!gate_no_regression(nb2, 4, nc, 3, 3, &v) && strstr(v.reason, "samples are not pairs (4 baseline, 3 candidate)"),
	       "no regression: samples that are not pairs fail (%s)", v.reason);
	gate_verdict_init(&v);
	TAP_OK(!gate_no_regression(nb2, 4, nc, 4, 5, &v) && v.gate == GATE_PERF && (v.gates_run & (1u << GATE_PERF)),
	       "no regression: too few pairs fail, gate 4 run");
}

/* the compiled baseline's rmse rule at its edge, to the last bit: rmse
 * exactly m times eager's plus a tenth of atol is as accurate as eager,
 * one ulp more is not; m 2 for fp32 and 3 for half types. And each gate
 * marks itself run, and no other. */
static void baseline_edge(void)
{
	struct kopt_gates cfg;
	gate_config_default(&cfg);
	cfg.atol = 0.5;
	cfg.atol_half = 0.25;
	static const struct { const char *dtype; double m, atol; } dt[] = { { "float32", 2.0, 0.5 }, { "float16", 3.0, 0.25 } };
	int right = 0;
	for (int d = 0; d < 2; d++) {
		double re = 0.375, lim = dt[d].m * re + dt[d].atol / 10.0;
		for (int k = 0; k < 2; k++) {
			double rc = k ? nextafter(lim, INFINITY) : lim;
			json_t *c = json_pack("{s:[{s:i, s:[{s:i, s:s, s:b, s:b, s:b, s:b, s:f, s:b, s:f, s:f, s:b, s:b}]}]}", "seeds",
					      "seed", 1, "outputs", "index", 0, "dtype", dt[d].dtype, "shape_mismatch", 0,
					      "dtype_mismatch", 0, "nan_mismatch", 0, "inf_mismatch", 0, "max_abs", 9.0, "allclose", 0,
					      "rmse_compiled", rc, "rmse_eager", re, "eager_close64", 1, "compiled_close64", 0);
			char why[GATE_REASON_MAX];
			enum gate_baseline_status st = gate_baseline(c, &cfg, why, sizeof why);
			right += st == (k ? GATE_BASE_WRONG : GATE_BASE_ACCURATE);
			if (st != (k ? GATE_BASE_WRONG : GATE_BASE_ACCURATE))
				tap_diag("%s, rmse %.17g of limit %.17g: %s", dt[d].dtype, rc, lim, why);
			json_decref(c);
		}
	}
	TAP_IS_INT(right, 4, "baseline: rmse at m x eager's + atol / 10 is accurate, one ulp over is not (fp32 m 2, half m 3)");
	struct gate_verdict v;
	gate_verdict_init(&v);
	gate_fp64(1e-6, 1e-6, 1e-4, GATE_DTYPE_FP32, &v);
	unsigned fp = v.gates_run;
	gate_verdict_init(&v);
	double b[] = { 100, 100, 100 }, c[] = { 90, 90, 90 };
	gate_perf(b, 3, c, 3, 1.03, 3, GATE_LEVEL_KERNEL, &v);
	unsigned pf = v.gates_run;
	gate_verdict_init(&v);
	gate_no_regression(b, 3, c, 3, 3, &v);
	TAP_OK(fp == 1u << GATE_FP64 && pf == 1u << GATE_PERF && v.gates_run == 1u << GATE_PERF,
	       "each gate marks itself run and no other (fp64 %#x, perf %#x, no regression %#x)", fp, pf, v.gates_run);
	static const struct { unsigned run; const char *names; } gr[] = {
		{ 0, "[]" },
		{ 1u << GATE_STATIC, "[\"static\"]" },
		{ 1u << GATE_CORRECTNESS | 1u << GATE_PERF, "[\"correctness\",\"perf\"]" },
		{ 1u << GATE_STATIC | 1u << GATE_CORRECTNESS | 1u << GATE_FP64 | 1u << GATE_PERF,
		  "[\"static\",\"correctness\",\"fp64\",\"perf\"]" },
		{ 1u << GATE_NONE | 1u << GATE_FP64, "[\"fp64\"]" },
	};
	int named = 0;
	for (size_t i = 0; i < sizeof gr / sizeof *gr; i++) {
		gate_verdict_init(&v);
		v.gates_run = gr[i].run;
		json_t *j = gate_verdict_to_json(&v);
		char *t = json_dumps(json_object_get(j, "gates_run"), JSON_COMPACT);
		if (t && !strcmp(t, gr[i].names))
			named++;
		else
			tap_diag("gates_run %#x: %s", gr[i].run, t ? t : "(none)");
		free(t);
		json_decref(j);
	}
	TAP_IS_INT(named, 5, "a verdict's JSON names the gates that ran, in order, and no other");
}

/* strict precision's ulp term, alone (a baseline without error): 4 ulps
 * of the outputs' scale, an ulp 2^-23 for fp32, 2^-10 for fp16, 2^-7 for
 * bf16; at the limit passes, a part in a million past it fails, and the
 * limit is the verdict's to the bit */
static void ulp_edges(void)
{
	static const struct { const char *dtype; double ulp; } d[] = {
		{ "float32", 0x1p-23 }, { "torch.float16", 0x1p-10 }, { "bfloat16", 0x1p-7 }, { "torch.bfloat16", 0x1p-7 },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
		double limit = 4 * d[i].ulp * 2.0;
		char at[256], past[256];
		snprintf(at, sizeof at, "{\"outputs\":[{\"dtype\":\"%s\",\"rmse_cand\":%.17g,\"rmse_base\":0,\"ref_rms\":2}]}",
			 d[i].dtype, limit);
		snprintf(past, sizeof past, "{\"outputs\":[{\"dtype\":\"%s\",\"rmse_cand\":%.17g,\"rmse_base\":0,\"ref_rms\":2}]}",
			 d[i].dtype, limit * 1.000001);
		struct kopt_gates cfg;
		gate_config_default(&cfg);
		struct gate_verdict v, w;
		gate_verdict_init(&v);
		gate_verdict_init(&w);
		json_t *a = json_loads(at, 0, NULL), *b = json_loads(past, 0, NULL);
		bool pass = gate_precision_json(a, &cfg, &v), fail = !gate_precision_json(b, &cfg, &w);
		if (pass && fail && v.rmse_limit == limit && w.rmse_limit == limit)
			right++;
		else
			tap_diag("%s: %d %d limit %.17g (%.17g): %s", d[i].dtype, pass, fail, v.rmse_limit, limit, w.reason);
		json_decref(a);
		json_decref(b);
	}
	TAP_IS_INT(right, (int)(sizeof d / sizeof *d),
		   "precision: 4 ulps of the outputs' scale, fp32's, fp16's and bf16's, at the limit and past it");
}

int main(void)
{
	/* fp16: m = 3. A candidate 2.5x the baseline's error passes, 3.5x fails */
	TAP_OK(precision("float16", 2.5e-3, 1e-3), "precision: fp16 at 2.5x the baseline's RMSE passes (m = 3)");
	TAP_OK(!precision("float16", 3.5e-3, 1e-3), "precision: fp16 at 3.5x fails");
	/* bf16: m = 3 as well (its own branch, its own ulp) */
	TAP_OK(precision("bfloat16", 2.5e-3, 1e-3), "precision: bf16 at 2.5x the baseline's RMSE passes (m = 3)");
	TAP_OK(!precision("bfloat16", 3.5e-3, 1e-3), "precision: bf16 at 3.5x fails");
	/* fp32: m = 2. 1.9x passes, 2.5x fails */
	TAP_OK(precision("float32", 1.9e-6, 1e-6), "precision: fp32 at 1.9x passes (m = 2)");
	TAP_OK(!precision("float32", 2.5e-6, 1e-6), "precision: fp32 at 2.5x fails");

	/* five pairs, ratios 1.0 1.0 1.2 1.2 1.2: the lower quartile sits at
	 * the second sorted ratio, (5 - 1) / 4 = 1 exactly: 1.0; the speedup,
	 * median 120 over median 100, is 1.2 */
	double base[] = { 100, 120, 100, 120, 120 }, cand[] = { 100, 100, 100, 100, 100 };
	struct gate_verdict v;
	gate_verdict_init(&v);
	TAP_OK(gate_perf(base, 5, cand, 5, 1.03, 3, GATE_LEVEL_KERNEL, &v), "perf: a lower quartile of exactly 1 passes");
	TAP_OK(v.kernel.ratio_q25 == 1.0 && fabs(v.kernel.speedup - 1.2) < 1e-12, "perf: q25 1.0, speedup 1.2 (%g, %g)",
	       v.kernel.ratio_q25, v.kernel.speedup);
	/* two pairs at 0.99: the quartile falls under 1 */
	double base2[] = { 99, 120, 99, 120, 120 };
	gate_verdict_init(&v);
	TAP_OK(!gate_perf(base2, 5, cand, 5, 1.03, 3, GATE_LEVEL_KERNEL, &v) && strstr(v.reason, "within the noise"),
	       "perf: a lower quartile under 1 fails as noise");
	ulp_edges();
	perf_edges();
	baseline_edge();
	return tap_done();
}
