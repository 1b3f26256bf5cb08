/*
 * gates/gate.c: what the gates share (names, dtypes, defaults, reasons), the
 * cascade (gate_decide) and the verdict's JSON form. See gates.h.
 */
#include "gates.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const gate_names[GATE_COUNT] = {
	[GATE_NONE] = "none",
	[GATE_STATIC] = "static",
	[GATE_CORRECTNESS] = "correctness",
	[GATE_FP64] = "fp64",
	[GATE_PERF] = "perf",
};

const char *gate_name(enum gate_id gate)
{
	if ((unsigned)gate >= GATE_COUNT)
		return "none";
	return gate_names[gate];
}

enum gate_dtype gate_dtype_parse(const char *name)
{
	static const struct { const char *name; enum gate_dtype dt; } tab[] = {
		{ "float32", GATE_DTYPE_FP32 }, { "float", GATE_DTYPE_FP32 }, { "fp32", GATE_DTYPE_FP32 },
		{ "float64", GATE_DTYPE_FP32 }, { "double", GATE_DTYPE_FP32 }, { "fp64", GATE_DTYPE_FP32 },
		{ "float16", GATE_DTYPE_HALF }, { "half", GATE_DTYPE_HALF }, { "fp16", GATE_DTYPE_HALF },
		{ "bfloat16", GATE_DTYPE_HALF }, { "bf16", GATE_DTYPE_HALF },
		{ "bool", GATE_DTYPE_EXACT }, { "uint8", GATE_DTYPE_EXACT }, { "int8", GATE_DTYPE_EXACT },
		{ "int16", GATE_DTYPE_EXACT }, { "int32", GATE_DTYPE_EXACT }, { "int64", GATE_DTYPE_EXACT },
		{ "uint16", GATE_DTYPE_EXACT }, { "uint32", GATE_DTYPE_EXACT }, { "uint64", GATE_DTYPE_EXACT },
		{ "long", GATE_DTYPE_EXACT }, { "int", GATE_DTYPE_EXACT },
	};
	if (!name)
		return GATE_DTYPE_UNKNOWN;
	if (strncmp(name, "torch.", 6) == 0)
		name += 6;
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (strcmp(name, tab[i].name) == 0)
			return tab[i].dt;
	return GATE_DTYPE_UNKNOWN;
}

void gate_config_default(struct kopt_gates *cfg)
{
	*cfg = lang_gates_default;
}

void gate_tolerance(const struct kopt_gates *cfg, enum gate_dtype dt, double *atol, double *rtol)
{
	switch (dt) {
	case GATE_DTYPE_HALF:
		*atol = cfg->atol_half;
		*rtol = cfg->rtol_half;
		break;
	case GATE_DTYPE_EXACT:
		*atol = *rtol = 0;
		break;
	case GATE_DTYPE_FP32:
	case GATE_DTYPE_UNKNOWN:
	default:
		*atol = cfg->atol;
		*rtol = cfg->rtol;
		break;
	}
}

static void timing_init(struct gate_timing *t)
{
	t->pairs = 0;
	t->base_median = t->cand_median = t->speedup = NAN;
	t->ratio_q25 = t->ratio_median = t->ratio_q75 = t->noise = NAN;
}

void gate_verdict_init(struct gate_verdict *v)
{
	memset(v, 0, sizeof *v);
	v->pass = false;
	v->gate = GATE_NONE;
	v->seeds = v->seed = v->output = -1;
	v->max_abs = v->max_rel = v->atol = v->rtol = NAN;
	v->rmse_cand = v->rmse_base = v->rmse_limit = NAN;
	v->gamma = NAN;
	timing_init(&v->kernel);
	timing_init(&v->model);
}

void gate_reason(struct gate_verdict *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof v->reason, fmt, ap);
	va_end(ap);
	/* one line, whatever the worker put into its strings */
	for (char *p = v->reason; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

char *gate_fmt_num(char *buf, size_t n, double x)
{
	if (x == 0) {
		snprintf(buf, n, "0");
		return buf;
	}
	if (!isfinite(x)) {
		snprintf(buf, n, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
		return buf;
	}
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.1e", x);
	char *dot = strchr(tmp, '.');
	if (dot && dot[1] == '0' && dot[2] == 'e')
		memmove(dot, dot + 2, strlen(dot + 2) + 1);
	snprintf(buf, n, "%s", tmp);
	return buf;
}

/* ---- the cascade ---- */

/* Reads a JSON array of numbers into a new array; -1 if it is not one.
 * Integers are accepted (a worker may send whole nanoseconds). */
int gate_read_samples(const json_t *a, double **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!json_is_array(a))
		return -1;
	size_t len = json_array_size(a);
	double *x = xmalloc(len * sizeof *x); /* xmalloc takes 0 */
	for (size_t i = 0; i < len; i++) {
		const json_t *e = json_array_get(a, i);
		if (!json_is_number(e)) {
			free(x);
			return -1;
		}
		x[i] = json_number_value(e);
	}
	*out = x;
	*n = len;
	return 0;
}

size_t gate_min_pairs(const struct kopt_gates *cfg)
{
	/* quartiles of fewer than three pairs mean nothing */
	size_t repeats = cfg->repeats > 3 ? (size_t)cfg->repeats : 3;
	return repeats < GATE_SEQ_MIN_PAIRS ? repeats : GATE_SEQ_MIN_PAIRS;
}

/* Both arrays of a level, or neither; 1 = present, 0 = absent, -1 = malformed. */
static int read_level(const json_t *perf, const char *kb, const char *kc,
		      double **b, size_t *nb, double **c, size_t *nc, struct gate_verdict *v)
{
	const json_t *jb = json_object_get(perf, kb), *jc = json_object_get(perf, kc);
	*b = *c = NULL;
	*nb = *nc = 0;
	if (!jb && !jc)
		return 0;
	if (!jb || !jc) {
		gate_reason(v, "perf: bad numbers: %s without %s", jb ? kb : kc, jb ? kc : kb);
		return -1;
	}
	if (gate_read_samples(jb, b, nb) < 0 || gate_read_samples(jc, c, nc) < 0) {
		free(*b);
		*b = NULL;
		gate_reason(v, "perf: bad numbers: %s and %s must be arrays of numbers", kb, kc);
		return -1;
	}
	return 1;
}

/*
 * Host time held at the baseline's. A model call's CUDA time is the host's
 * work before its first kernel plus the device's span; the worker sends the
 * spans too (model_base_dev_ns, model_cand_dev_ns). The host part belongs to
 * the compiled code's wrapper, which the deployment keeps whatever kernels
 * it swaps, while the worker's swap of a kernel object can make it cheaper or
 * dearer (DESIGN-NOTES.md, "Model times hold the host at the baseline's").
 * So each candidate sample becomes its pair's baseline time less the device
 * time it saved: cand_i = base_i - (base_dev_i - cand_dev_i). Without spans,
 * or with any that is not a positive time, the samples stay as measured.
 */
static void hold_host(const json_t *perf, const double *mb, size_t nmb, double *mc, size_t nmc,
		      struct gate_verdict *v)
{
	const json_t *jb = json_object_get(perf, "model_base_dev_ns"), *jc = json_object_get(perf, "model_cand_dev_ns");
	if (!json_is_array(jb) || !json_is_array(jc) || json_array_size(jb) != nmb || json_array_size(jc) != nmc ||
	    nmb != nmc || nmb == 0)
		return;
	double *adj = xmalloc(nmb * sizeof *adj);
	for (size_t i = 0; i < nmb; i++) {
		const json_t *b = json_array_get(jb, i), *c = json_array_get(jc, i);
		double db = json_number_value(b), dc = json_number_value(c);
		adj[i] = mb[i] - (db - dc);
		if (!json_is_number(b) || !json_is_number(c) || !(db > 0) || !(dc > 0) || !isfinite(db) ||
		    !isfinite(dc) || !(adj[i] > 0)) {
			free(adj);
			return;
		}
	}
	memcpy(mc, adj, nmb * sizeof *adj);
	free(adj);
	v->host_held = true;
}

static bool run_perf(const json_t *perf, const struct kopt_gates *cfg, struct gate_verdict *v)
{
	double *kb = NULL, *kc = NULL, *mb = NULL, *mc = NULL;
	size_t nkb, nkc, nmb, nmc;
	bool ok = false;
	int hm = 0;
	size_t minp = gate_min_pairs(cfg);

	v->gate = GATE_PERF;
	v->gates_run |= 1u << GATE_PERF;
	v->gamma = cfg->gamma;
	if (!json_is_object(perf)) {
		gate_reason(v, "perf: bad numbers: \"perf\" is not an object");
		return v->pass = false;
	}
	int hk = read_level(perf, "base_ns", "cand_ns", &kb, &nkb, &kc, &nkc, v);
	if (hk < 0)
		goto out;
	hm = read_level(perf, "model_base_ns", "model_cand_ns", &mb, &nmb, &mc, &nmc, v);
	if (hm < 0)
		goto out;
	if (hm > 0)
		hold_host(perf, mb, nmb, mc, nmc, v);
	if (!hk && !hm) {
		gate_reason(v, "perf: bad numbers: no timing samples");
		goto out;
	}
	if (hk) {
		if (!gate_perf(kb, nkb, kc, nkc, cfg->gamma, minp, GATE_LEVEL_KERNEL, v))
			goto out;
		if (!hm) {
			ok = true;
			goto out;
		}
		char kreason[GATE_REASON_MAX];
		snprintf(kreason, sizeof kreason, "%s", v->reason);
		if (!gate_no_regression(mb, nmb, mc, nmc, minp, v))
			goto out;
		char mreason[GATE_REASON_MAX];
		snprintf(mreason, sizeof mreason, "%s", v->reason);
		/* "perf: kernel ...; model ..." */
		gate_reason(v, "%s; %s", kreason, mreason + strlen("perf: "));
		ok = true;
	} else {
		ok = gate_perf(mb, nmb, mc, nmc, cfg->gamma, minp, GATE_LEVEL_MODEL, v);
	}
out:
	free(kb);
	free(kc);
	free(mb);
	free(mc);
	if (v->host_held && hm > 0) {
		char r[GATE_REASON_MAX];
		snprintf(r, sizeof r, "%s", v->reason);
		gate_reason(v, "%s (model: host time held at the baseline's)", r);
	}
	size_t pairs = v->kernel.pairs ? v->kernel.pairs : v->model.pairs;
	if (pairs && pairs < (size_t)cfg->repeats) {
		char r[GATE_REASON_MAX];
		snprintf(r, sizeof r, "%s", v->reason);
		gate_reason(v, "%s, decided after %zu of %d pairs", r, pairs, cfg->repeats);
	}
	v->pass = ok;
	return ok;
}

int gate_decide(const json_t *numbers, const struct kopt_gates *cfg, struct gate_verdict *out)
{
	struct kopt_gates defaults;
	const char *names[GATE_COUNT];
	size_t nnames = 0;

	gate_verdict_init(out);
	if (!cfg) {
		gate_config_default(&defaults);
		cfg = &defaults;
	}
	if (!json_is_object(numbers)) {
		gate_reason(out, "bad numbers: not a JSON object");
		return -1;
	}

	const json_t *st = json_object_get(numbers, "static");
	const json_t *co = json_object_get(numbers, "correctness");
	const json_t *fp = json_object_get(numbers, "fp64");
	const json_t *pe = json_object_get(numbers, "perf");
	const json_t *pr = json_object_get(numbers, "precision");
	if (!st && !co && !fp && !pe) {
		gate_reason(out, "no gate numbers in the reply");
		return 0;
	}

	if (st) {
		if (!gate_static(st, out))
			return 0;
		names[nnames++] = "static";
	}
	if (co) {
		bool tol_only = false;
		if (!gate_correctness(co, cfg, out, &tol_only)) {
			if (!tol_only || !cfg->fp64_fallback || !fp)
				return 0;
			/* beyond tolerance only: the float64 reference decides */
			if (!gate_fp64_json(fp, cfg, out))
				return 0;
			names[nnames++] = "correctness";
			names[nnames++] = "fp64";
		} else {
			names[nnames++] = "correctness";
		}
		if (pr && cfg->precision == KOPT_PRECISION_STRICT) {
			if (!gate_precision_json(pr, cfg, out))
				return 0;
			if (strcmp(names[nnames - 1], "fp64") != 0)
				names[nnames++] = "fp64";
		}
	} else if (fp) {
		/* fp64 numbers without the comparison they are the fallback of */
		out->gate = GATE_FP64;
		gate_reason(out, "fp64: bad numbers: fp64 without correctness");
		out->pass = false;
		return 0;
	}
	if (pe) {
		if (!run_perf(pe, cfg, out))
			return 0;
		names[nnames++] = "perf";
	}

	/* "passed static, correctness, perf: kernel 1.21x ..." */
	char last[GATE_REASON_MAX];
	const char *detail = out->reason;
	const char *colon = strstr(detail, ": ");
	snprintf(last, sizeof last, "%s", colon ? colon + 2 : detail);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "passed ");
	for (size_t i = 0; i < nnames; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", names[i]);
	strbuf_addf(&sb, ": %s", last);
	gate_reason(out, "%s", sb.buf);
	strbuf_release(&sb);
	out->pass = true;
	return 0;
}

/* ---- JSON ---- */

static void set_num(json_t *o, const char *key, double x)
{
	if (isfinite(x))
		json_object_set_new(o, key, json_real(x));
}

static json_t *timing_json(const struct gate_timing *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "pairs", json_integer((json_int_t)t->pairs));
	set_num(o, "base_median_ns", t->base_median);
	set_num(o, "cand_median_ns", t->cand_median);
	set_num(o, "speedup", t->speedup);
	set_num(o, "ratio_q25", t->ratio_q25);
	set_num(o, "ratio_median", t->ratio_median);
	set_num(o, "ratio_q75", t->ratio_q75);
	set_num(o, "noise", t->noise);
	return o;
}

json_t *gate_verdict_to_json(const struct gate_verdict *v)
{
	json_t *o = json_object();
	json_t *n = json_object();
	json_object_set_new(o, "verdict", json_string(v->pass ? "pass" : "fail"));
	json_object_set_new(o, "gate", v->pass || v->gate == GATE_NONE ? json_null() : json_string(gate_name(v->gate)));
	json_object_set_new(o, "reason", json_string(v->reason));
	json_t *run = json_array();
	for (int g = GATE_STATIC; g < GATE_COUNT; g++)
		if (v->gates_run & (1u << g))
			json_array_append_new(run, json_string(gate_name((enum gate_id)g)));
	json_object_set_new(o, "gates_run", run);
	if (v->seeds >= 0)
		json_object_set_new(n, "seeds", json_integer(v->seeds));
	if (v->seed >= 0)
		json_object_set_new(n, "seed", json_integer(v->seed));
	if (v->output >= 0)
		json_object_set_new(n, "output", json_integer(v->output));
	set_num(n, "max_abs", v->max_abs);
	set_num(n, "max_rel", v->max_rel);
	set_num(n, "atol", v->atol);
	set_num(n, "rtol", v->rtol);
	set_num(n, "rmse_cand", v->rmse_cand);
	set_num(n, "rmse_base", v->rmse_base);
	set_num(n, "rmse_limit", v->rmse_limit);
	set_num(n, "gamma", v->gamma);
	if (v->kernel.pairs)
		json_object_set_new(n, "kernel", timing_json(&v->kernel));
	if (v->model.pairs)
		json_object_set_new(n, "model", timing_json(&v->model));
	json_object_set_new(o, "numbers", n);
	return o;
}
