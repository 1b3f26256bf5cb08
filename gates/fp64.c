/*
 * gates/fp64.c: gate 3, the float64 fallback.
 *
 * When the candidate's outputs differ from the baseline's beyond tolerance,
 * the question is which of the two is further from the truth. The worker runs
 * the model in float64 eager (TF32 off) and sends both RMSEs to that
 * reference. The rule is dynamo's (torch/_dynamo/utils.py, `same`):
 *
 *     rmse(fp64, cand) <= m * rmse(fp64, base) + tol / 10
 *
 * with m = 2 for fp32 and 3 for fp16/bf16 (half types round more, so a
 * reordered reduction moves further), and tol the dtype's atol. The tol/10
 * term keeps a baseline that happens to be exact (rmse 0) from demanding an
 * exact candidate.
 */
#include "gates.h"

#include <math.h>
#include <stdio.h>

bool gate_fp64(double rmse_cand, double rmse_base, double tol, enum gate_dtype dt,
	       struct gate_verdict *v)
{
	char a[32], b[32], c[32];
	double m = dt == GATE_DTYPE_HALF ? 3.0 : 2.0;

	v->gate = GATE_FP64;
	v->gates_run |= 1u << GATE_FP64;
	v->rmse_cand = rmse_cand;
	v->rmse_base = rmse_base;
	v->rmse_limit = m * rmse_base + tol / 10.0;
	if (!isfinite(rmse_cand) || !isfinite(rmse_base) || rmse_cand < 0 || rmse_base < 0) {
		gate_reason(v, "fp64: rmse is not a finite number (candidate %s, baseline %s)",
			    gate_fmt_num(a, sizeof a, rmse_cand), gate_fmt_num(b, sizeof b, rmse_base));
		return v->pass = false;
	}
	gate_fmt_num(a, sizeof a, rmse_cand);
	gate_fmt_num(b, sizeof b, rmse_base);
	gate_fmt_num(c, sizeof c, tol / 10.0);
	v->pass = rmse_cand <= v->rmse_limit;
	gate_reason(v, "fp64: rmse to fp64 %s %s %.0f x baseline's %s + tol/10 %s",
		    a, v->pass ? "<=" : ">", m, b, c);
	return v->pass;
}

bool gate_fp64_json(const json_t *num, const struct kopt_gates *cfg, struct gate_verdict *v)
{
	v->gate = GATE_FP64;
	v->gates_run |= 1u << GATE_FP64;
	v->pass = false;
	const json_t *outs = json_is_object(num) ? json_object_get(num, "outputs") : NULL;
	if (!json_is_array(outs) || json_array_size(outs) == 0) {
		gate_reason(v, "fp64: bad numbers: \"outputs\" is not a non-empty array");
		return false;
	}
	size_t n = json_array_size(outs);

	/* check every output; report the first failure, else the closest call */
	struct gate_verdict best;
	double best_margin = INFINITY;
	long best_idx = -1;
	gate_verdict_init(&best);
	for (size_t i = 0; i < n; i++) {
		const json_t *o = json_array_get(outs, i);
		const json_t *ix = json_object_get(o, "index");
		long idx = json_is_integer(ix) ? (long)json_integer_value(ix) : (long)i;
		const char *dts = json_string_value(json_object_get(o, "dtype"));
		const json_t *rc = json_object_get(o, "rmse_cand"), *rb = json_object_get(o, "rmse_base");
		if (!json_is_object(o) || !dts || !json_is_number(rc) || !json_is_number(rb)) {
			gate_reason(v, "fp64: bad numbers: outputs[%zu] needs dtype, rmse_cand and rmse_base", i);
			return false;
		}
		enum gate_dtype dt = gate_dtype_parse(dts);
		if (dt != GATE_DTYPE_FP32 && dt != GATE_DTYPE_HALF) {
			gate_reason(v, "fp64: output %ld has dtype '%s', not a floating type", idx, dts);
			return false;
		}
		double atol, rtol;
		gate_tolerance(cfg, dt, &atol, &rtol);
		struct gate_verdict one;
		gate_verdict_init(&one);
		bool ok = gate_fp64(json_number_value(rc), json_number_value(rb), atol, dt, &one);
		double margin = one.rmse_limit - one.rmse_cand;
		if (!ok || margin < best_margin) {
			best = one;
			best_margin = margin;
			best_idx = idx;
		}
		if (!ok)
			break;
	}
	v->rmse_cand = best.rmse_cand;
	v->rmse_base = best.rmse_base;
	v->rmse_limit = best.rmse_limit;
	v->pass = best.pass;
	if (n > 1)
		gate_reason(v, "%s (output %ld)", best.reason, best_idx);
	else
		gate_reason(v, "%s", best.reason);
	return v->pass;
}
