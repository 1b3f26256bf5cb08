/*
 * gates/baseline.c: is the compiled baseline itself right?
 *
 * Every candidate is compared with the compiled baseline, and every speedup
 * is a speedup over it; neither means anything if the compiled code does not
 * compute the model. So each compile variant is checked once, at profile
 * time, against eager PyTorch: the worker runs both on the gates' seeds and,
 * where an output differs beyond the tolerances, compares both with the
 * float64 reference (the "check" object of a profile reply, PROTOCOL.md).
 * Per output, in this order:
 *
 *   1. allclose to eager at the gates' tolerances: it agrees;
 *   2. a different shape or dtype: wrong (nothing to weigh);
 *   3. allclose to the float64 reference: right, eager is the one off;
 *   4. dynamo's rule against the reference, rmse(compiled) <= m * rmse(eager)
 *      + tol / 10 (m = 2 for fp32, 3 for half types; fp64.c): as accurate
 *      as eager, a reordering;
 *   5. eager allclose to the reference: the compile is wrong;
 *   6. otherwise neither is close to the reference: the problem is
 *      ill-conditioned at this precision.
 *
 * The variant's status is the worst over every seed and output, wrong
 * ranking above ill-conditioned (eager was right somewhere the compile was
 * not). A wrong variant claims no speedup and is not optimized; an
 * ill-conditioned model is reported, not optimized (rules/profile.c,
 * rules/stitch.c).
 */
#include "gates.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *gate_baseline_name(enum gate_baseline_status s)
{
	switch (s) {
	case GATE_BASE_AGREES: return "agrees";
	case GATE_BASE_ACCURATE: return "accurate";
	case GATE_BASE_WRONG: return "wrong";
	case GATE_BASE_ILL: return "ill-conditioned";
	case GATE_BASE_UNCHECKED: break;
	}
	return "unchecked";
}

bool gate_baseline_usable(enum gate_baseline_status s)
{
	return s == GATE_BASE_AGREES || s == GATE_BASE_ACCURATE || s == GATE_BASE_UNCHECKED;
}

/* rank of a status for "the worst over every output" */
static int rank(enum gate_baseline_status s)
{
	static const int r[] = { [GATE_BASE_UNCHECKED] = 0, [GATE_BASE_AGREES] = 1, [GATE_BASE_ACCURATE] = 2,
				 [GATE_BASE_ILL] = 3, [GATE_BASE_WRONG] = 4 };
	return r[s];
}

static bool flag(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

static double num(const json_t *o, const char *key)
{
	const json_t *x = json_object_get(o, key);
	return json_is_number(x) ? json_number_value(x) : NAN;
}

/* one output: its status, and a clause for the reason */
static enum gate_baseline_status judge(const json_t *o, const struct kopt_gates *cfg, int seed,
				       char *why, size_t n)
{
	char a[32], b[32], c[32];
	long idx = json_integer_value(json_object_get(o, "index"));
	enum gate_dtype dt = gate_dtype_parse(json_string_value(json_object_get(o, "dtype")));
	double atol, rtol;
	gate_tolerance(cfg, dt, &atol, &rtol);
	if (flag(o, "shape_mismatch") || flag(o, "dtype_mismatch")) {
		snprintf(why, n, "output %ld has another %s than eager's at seed %d", idx,
			 flag(o, "shape_mismatch") ? "shape" : "dtype", seed);
		return GATE_BASE_WRONG;
	}
	bool structural = flag(o, "nan_mismatch") || flag(o, "inf_mismatch");
	if (flag(o, "allclose") && !structural)
		return GATE_BASE_AGREES;
	gate_fmt_num(a, sizeof a, num(o, "max_abs"));
	if (flag(o, "compiled_close64"))
		return GATE_BASE_ACCURATE;
	double rc = num(o, "rmse_compiled"), re = num(o, "rmse_eager");
	double m = dt == GATE_DTYPE_HALF ? 3.0 : 2.0;
	gate_fmt_num(b, sizeof b, rc);
	gate_fmt_num(c, sizeof c, re);
	if (!structural && isfinite(rc) && isfinite(re) && rc <= m * re + atol / 10.0)
		return GATE_BASE_ACCURATE;
	if (flag(o, "eager_close64")) {
		if (structural)
			snprintf(why, n, "output %ld has NaN or Inf where eager and the float64 reference have none, at seed %d",
				 idx, seed);
		else
			snprintf(why, n, "output %ld differs from eager by max abs error %s at seed %d, and eager matches "
				 "the float64 reference (rmse: compiled %s, eager %s)", idx, a, seed, b, c);
		return GATE_BASE_WRONG;
	}
	snprintf(why, n, "output %ld: eager and the compiled code both disagree with the float64 reference at seed %d "
		 "(rmse: compiled %s, eager %s; they differ by max abs error %s)", idx, seed, b, c, a);
	return GATE_BASE_ILL;
}

enum gate_baseline_status gate_baseline(const json_t *check, const struct kopt_gates *cfg, char *reason, size_t n)
{
	struct kopt_gates defaults;
	if (!cfg) {
		gate_config_default(&defaults);
		cfg = &defaults;
	}
	const json_t *seeds = json_is_object(check) ? json_object_get(check, "seeds") : NULL;
	if (!json_is_array(seeds) || json_array_size(seeds) == 0) {
		snprintf(reason, n, "compiled baseline not checked against eager");
		return GATE_BASE_UNCHECKED;
	}
	enum gate_baseline_status worst = GATE_BASE_AGREES;
	char why[GATE_REASON_MAX] = "", one[GATE_REASON_MAX];
	double max_abs = 0;
	size_t si;
	const json_t *s;
	json_array_foreach(seeds, si, s) {
		int seed = (int)json_integer_value(json_object_get(s, "seed"));
		size_t oi;
		const json_t *o;
		json_array_foreach(json_object_get(s, "outputs"), oi, o) {
			one[0] = '\0';
			enum gate_baseline_status st = judge(o, cfg, seed, one, sizeof one);
			double x = num(o, "max_abs");
			if (isfinite(x) && x > max_abs)
				max_abs = x;
			if (rank(st) > rank(worst)) {
				worst = st;
				snprintf(why, sizeof why, "%s", one);
			}
		}
	}
	char a[32];
	gate_fmt_num(a, sizeof a, max_abs);
	switch (worst) {
	case GATE_BASE_AGREES:
		snprintf(reason, n, "compiled baseline agrees with eager over %zu seeds (max abs error %s)",
			 json_array_size(seeds), a);
		break;
	case GATE_BASE_ACCURATE:
		snprintf(reason, n, "compiled baseline differs from eager beyond tolerance (max abs error %s) but is as "
			 "close to the float64 reference as eager", a);
		break;
	case GATE_BASE_WRONG:
		snprintf(reason, n, "compiled baseline disagrees with eager: %s", why);
		break;
	case GATE_BASE_ILL:
		snprintf(reason, n, "ill-conditioned: %s", why);
		break;
	case GATE_BASE_UNCHECKED:
		break;
	}
	return worst;
}
