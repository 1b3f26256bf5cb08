/*
 * gates/correctness.c: gate 2, outputs against the baseline's over seeds.
 *
 * The worker runs the baseline and the candidate on the same fresh inputs for
 * each seed and reports, per output, flags for what must be equal (shape,
 * strides, dtype, NaN and Inf places), whether an output aliases an input,
 * whether the candidate wrote into an input, and the error figures. The
 * decision is taken here:
 *
 *   1. any structural flag fails, whatever the errors (the fp64 fallback
 *      cannot rescue it);
 *   2. an output is close when max_abs <= atol: then every element is within
 *      atol + rtol * |ref|, whatever the worker's flag says;
 *   3. otherwise the worker's "allclose" flag decides (it alone saw every
 *      element, with the request's tolerances), but a claim of closeness that
 *      the figures contradict, max_abs > atol + rtol * ref_max_abs, is a fail;
 *   4. integer and bool outputs are compared exactly.
 *
 * The worker may stop before the last seed when a seed fails for certain (a
 * structural flag, or an error beyond tolerance where no fp64 fallback is
 * allowed): the reason is then that seed's. Fewer seeds than asked with no
 * failure among them fails as such, and a tolerance failure among fewer
 * seeds is not left to the fp64 fallback.
 *
 * Checks run in a fixed order (seed by seed, output by output, flags in the
 * order of the table below) so a reason names the first structural failure;
 * for tolerance the reason names the worst output, the largest max_abs.
 */
#include "gates.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* the structural flags of an output, in checking order */
static const struct {
	const char *key;
	const char *what; /* "output N <what> at seed S" */
} output_flags[] = {
	{ "dtype_mismatch", "dtype differs from the baseline's" },
	{ "shape_mismatch", "shape differs from the baseline's" },
	{ "stride_mismatch", "strides differ from the baseline's" },
	{ "aliases_input", "aliases an input" },
	{ "nan_mismatch", "has NaN in other places than the baseline" },
	{ "inf_mismatch", "has Inf in other places than the baseline" },
};

/* A malformed reply: names the path of the bad field. */
static bool bad(struct gate_verdict *v, const char *fmt, size_t si, long oi, const char *key)
{
	char path[128];
	if (oi >= 0)
		snprintf(path, sizeof path, "seeds[%zu].outputs[%ld].%s", si, oi, key);
	else
		snprintf(path, sizeof path, "seeds[%zu].%s", si, key);
	gate_reason(v, fmt, path);
	return false;
}

static int get_bool(const json_t *o, const char *key, bool *out)
{
	const json_t *b = json_object_get(o, key);
	if (!json_is_boolean(b))
		return -1;
	*out = json_is_true(b);
	return 0;
}

static int get_num(const json_t *o, const char *key, double *out)
{
	const json_t *x = json_object_get(o, key);
	if (!json_is_number(x))
		return -1;
	*out = json_number_value(x);
	return isfinite(*out) && *out >= 0 ? 0 : -1;
}

/* Validates every field first, so that a malformed reply fails as such and
 * never by the accident of which check comes first. */
static bool check_shape(const json_t *seeds, struct gate_verdict *v)
{
	for (size_t si = 0; si < json_array_size(seeds); si++) {
		const json_t *s = json_array_get(seeds, si);
		bool b;
		double x;
		if (!json_is_object(s)) {
			gate_reason(v, "correctness: bad numbers: seeds[%zu] is not an object", si);
			return false;
		}
		if (!json_is_integer(json_object_get(s, "seed")))
			return bad(v, "correctness: bad numbers: %s is not an integer", si, -1, "seed");
		if (get_bool(s, "input_modified", &b) < 0)
			return bad(v, "correctness: bad numbers: %s is not a boolean", si, -1, "input_modified");
		const json_t *outs = json_object_get(s, "outputs");
		if (!json_is_array(outs))
			return bad(v, "correctness: bad numbers: %s is not an array", si, -1, "outputs");
		for (size_t oi = 0; oi < json_array_size(outs); oi++) {
			const json_t *o = json_array_get(outs, oi);
			if (!json_is_object(o)) {
				gate_reason(v, "correctness: bad numbers: seeds[%zu].outputs[%zu] is not an object", si, oi);
				return false;
			}
			if (!json_is_string(json_object_get(o, "dtype")))
				return bad(v, "correctness: bad numbers: %s is not a string", si, (long)oi, "dtype");
			for (size_t f = 0; f < sizeof output_flags / sizeof output_flags[0]; f++)
				if (get_bool(o, output_flags[f].key, &b) < 0)
					return bad(v, "correctness: bad numbers: %s is not a boolean", si, (long)oi, output_flags[f].key);
			if (get_bool(o, "allclose", &b) < 0)
				return bad(v, "correctness: bad numbers: %s is not a boolean", si, (long)oi, "allclose");
			static const char *const nums[] = { "max_abs", "max_rel", "ref_max_abs" };
			for (size_t k = 0; k < 3; k++)
				if (get_num(o, nums[k], &x) < 0)
					return bad(v, "correctness: bad numbers: %s is not a finite number >= 0", si, (long)oi, nums[k]);
		}
	}
	return true;
}

/* the output's index as the worker numbers it, else its position */
static long output_index(const json_t *o, size_t pos)
{
	const json_t *i = json_object_get(o, "index");
	return json_is_integer(i) ? (long)json_integer_value(i) : (long)pos;
}

/* the largest errors over every seed and output into v; whether some seed
 * has several outputs (then reasons name the output) */
static bool overall_figures(const json_t *seeds, struct gate_verdict *v)
{
	bool multi = false;
	v->max_abs = v->max_rel = 0;
	for (size_t si = 0; si < json_array_size(seeds); si++) {
		const json_t *outs = json_object_get(json_array_get(seeds, si), "outputs");
		if (json_array_size(outs) > 1)
			multi = true;
		for (size_t oi = 0; oi < json_array_size(outs); oi++) {
			const json_t *o = json_array_get(outs, oi);
			double x;
			get_num(o, "max_abs", &x);
			v->max_abs = fmax(v->max_abs, x);
			get_num(o, "max_rel", &x);
			v->max_rel = fmax(v->max_rel, x);
		}
	}
	return multi;
}

/* 1. structural failures: false with the reason at the first one */
static bool structural(const json_t *seeds, struct gate_verdict *v)
{
	for (size_t si = 0; si < json_array_size(seeds); si++) {
		const json_t *s = json_array_get(seeds, si);
		const json_t *outs = json_object_get(s, "outputs");
		int seed = (int)json_integer_value(json_object_get(s, "seed"));
		bool flag = false;
		get_bool(s, "input_modified", &flag);
		if (flag) {
			v->seed = seed;
			gate_reason(v, "correctness: the candidate modified an input at seed %d", seed);
			return false;
		}
		if (json_array_size(outs) == 0) {
			v->seed = seed;
			gate_reason(v, "correctness: no outputs compared at seed %d", seed);
			return false;
		}
		for (size_t oi = 0; oi < json_array_size(outs); oi++) {
			const json_t *o = json_array_get(outs, oi);
			long idx = output_index(o, oi);
			const char *dts = json_string_value(json_object_get(o, "dtype"));
			if (gate_dtype_parse(dts) == GATE_DTYPE_UNKNOWN) {
				v->seed = seed;
				v->output = (int)idx;
				gate_reason(v, "correctness: output %ld has an unsupported dtype '%s' at seed %d", idx, dts, seed);
				return false;
			}
			for (size_t f = 0; f < sizeof output_flags / sizeof output_flags[0]; f++) {
				get_bool(o, output_flags[f].key, &flag);
				if (flag) {
					v->seed = seed;
					v->output = (int)idx;
					gate_reason(v, "correctness: output %ld %s at seed %d", idx, output_flags[f].what, seed);
					return false;
				}
			}
		}
	}
	return true;
}

/* the output the tolerance verdict is about */
struct worst {
	const json_t *o;       /* NULL until one is seen */
	bool fails;            /* beyond tolerance */
	bool contradicts;      /* "allclose" claimed against the figures */
	int seed;
	long idx;
	double abs, atol, rtol, ref;
};

/* 2-4. tolerance: the worst failing output, else the worst output */
static void find_worst(const json_t *seeds, const struct kopt_gates *cfg, struct worst *w)
{
	*w = (struct worst){ NULL, false, false, -1, -1, -1, 0, 0, 0 };
	for (size_t si = 0; si < json_array_size(seeds); si++) {
		const json_t *s = json_array_get(seeds, si);
		const json_t *outs = json_object_get(s, "outputs");
		int seed = (int)json_integer_value(json_object_get(s, "seed"));
		for (size_t oi = 0; oi < json_array_size(outs); oi++) {
			const json_t *o = json_array_get(outs, oi);
			enum gate_dtype dt = gate_dtype_parse(json_string_value(json_object_get(o, "dtype")));
			double atol, rtol, mabs = 0, ref = 0;
			bool allclose = false, close, contradicts = false;
			gate_tolerance(cfg, dt, &atol, &rtol);
			get_num(o, "max_abs", &mabs);
			get_num(o, "ref_max_abs", &ref);
			get_bool(o, "allclose", &allclose);
			if (mabs <= atol)
				close = true;
			else if (dt == GATE_DTYPE_EXACT)
				close = false;
			else if (allclose && mabs > atol + rtol * ref)
				close = false, contradicts = true;
			else
				close = allclose;
			/* a failure outranks a pass; then the larger error */
			if (!w->o || (!close && !w->fails) || (!close == w->fails && mabs > w->abs))
				*w = (struct worst){ o, !close, contradicts, seed, output_index(o, oi), mabs, atol, rtol, ref };
		}
	}
}

/* the reason of a tolerance failure */
static void tolerance_reason(struct gate_verdict *v, const struct worst *w, bool multi)
{
	char a[32], b[32], c[32], d[32], where[64] = "";
	if (multi)
		snprintf(where, sizeof where, ", output %ld", w->idx);
	gate_fmt_num(a, sizeof a, w->abs);
	gate_fmt_num(b, sizeof b, w->atol);
	gate_fmt_num(c, sizeof c, w->rtol);
	if (w->atol == 0 && w->rtol == 0) {
		const char *dts = json_string_value(json_object_get(w->o, "dtype"));
		gate_reason(v, "correctness: max abs error %s > 0 (exact dtype %s) at seed %d%s", a, dts, w->seed,
			    where);
	} else if (w->contradicts) {
		gate_fmt_num(d, sizeof d, w->ref);
		gate_reason(v, "correctness: allclose reported but max abs error %s > atol %s + rtol %s * max |ref| %s at seed %d%s",
			    a, b, c, d, w->seed, where);
	} else {
		gate_reason(v, "correctness: max abs error %s > atol %s + rtol %s * |ref| at seed %d%s", a, b, c,
			    w->seed, where);
	}
}

bool gate_correctness(const json_t *num, const struct kopt_gates *cfg,
		      struct gate_verdict *v, bool *tolerance_only)
{
	*tolerance_only = false;
	v->gate = GATE_CORRECTNESS;
	v->gates_run |= 1u << GATE_CORRECTNESS;
	v->pass = false;

	const json_t *seeds = json_is_object(num) ? json_object_get(num, "seeds") : NULL;
	if (!json_is_array(seeds)) {
		gate_reason(v, "correctness: bad numbers: \"seeds\" is not an array");
		return false;
	}
	if (!check_shape(seeds, v))
		return false;
	size_t nseeds = json_array_size(seeds);
	v->seeds = (int)nseeds;
	/* fewer seeds than asked: the worker stopped at a failure it knew to be
	 * final, which the checks below name; with none, too few is the failure */
	bool short_run = cfg->seeds > 0 && nseeds < (size_t)cfg->seeds;
	if (nseeds == 0) {
		/* the candidate did not run: the worker's error says why (out of
		 * shared memory, a launch that failed) */
		const char *err = json_string_value(json_object_get(num, "error"));
		if (err && *err)
			gate_reason(v, "correctness: the candidate did not run: %s", err);
		else
			gate_reason(v, "correctness: %zu seeds checked, gates ask for %d", nseeds, cfg->seeds);
		return false;
	}
	bool multi = overall_figures(seeds, v);
	if (!structural(seeds, v))
		return false;

	struct worst w;
	find_worst(seeds, cfg, &w);
	v->atol = w.atol;
	v->rtol = w.rtol;
	v->seed = w.seed;
	v->output = (int)w.idx;
	if (w.fails) {
		/* the fallback would rescue the seeds that ran, not those skipped */
		*tolerance_only = !short_run;
		tolerance_reason(v, &w, multi);
		return false;
	}
	if (short_run) {
		gate_reason(v, "correctness: %zu seeds checked, gates ask for %d", nseeds, cfg->seeds);
		return false;
	}
	char a[32], b[32], c[32], d[32];
	gate_fmt_num(a, sizeof a, v->max_abs);
	gate_fmt_num(b, sizeof b, w.atol);
	gate_fmt_num(c, sizeof c, w.rtol);
	gate_fmt_num(d, sizeof d, v->max_rel);
	gate_reason(v, "correctness: %zu seeds, max abs error %s, max rel error %s, within atol %s + rtol %s * |ref|",
		    nseeds, a, d, b, c);
	v->pass = true;
	return true;
}
