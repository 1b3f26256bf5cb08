/*
 * rules/space_pick.c: the implementation-space choice from a model's
 * profiles (space.h): where eager beats the compiled code (the agents'
 * ATen-fallback variant), where cuDNN calls are worth benchmarking, where
 * large float32 products are (tf32x3), those figures in a profile's
 * summary and the report's rows for them; the choice across a model's
 * compile variants; and what a variant's mode means (max-autotune, CUDA
 * graphs).
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "space.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gates/gates.h"
#include "common.h"
#include "plan.h"

/* whether mode is one of torch's max-autotune modes, with CUDA graphs or
 * without (space.h) */
bool rule_max_autotune(const char *mode)
{
	return mode && strncmp(mode, "max-autotune", 12) == 0;
}

/* the stitch's entry (meas) of the model's max-autotune variant, the
 * baseline a user gets with one keyword: the first of its variants in that
 * mode. The others in it (the agents' rewrites, a wider radius) are
 * candidates, never the baseline. NULL when none. */
const json_t *rule_report_autotune_variant(const struct dag_node *s, const json_t *meas)
{
	const struct kopt_model *m = rule_model_of(s)->spec;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(meas, "variants"), i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		for (size_t j = 0; name && j < m->nvariants; j++)
			if (strcmp(m->variants[j].name, name) == 0 && rule_max_autotune(m->variants[j].mode))
				return v;
	}
	return NULL;
}

/* whether torch runs mode as CUDA graphs (space.h) */
bool rule_mode_graphs(const char *mode)
{
	return mode && (strcmp(mode, "reduce-overhead") == 0 || strcmp(mode, "max-autotune") == 0);
}

/* Whether variant v (time tv) beats the best so far b (time tb) outside
 * the race's noise: round by round, tb's side over tv's, the lower
 * quartile of those ratios at least 1, as the performance gate asks of a
 * kernel's pairs (gates/perf.c). The medians of a host-bound model's race
 * moved by 5% from noise alone (bench/results/2026-12-06k-h200-shapes:
 * max-autotune chosen at 1.055x, its profile and the deployment 8% to 12%
 * behind). Where the race has too few rounds for both (fewer than the
 * gates' fewest pairs, or not the same count), or a round is not a
 * positive time, the medians decide alone. */
static bool race_beats(const json_t *race_rounds, size_t v, size_t b, double tv, double tb)
{
	double *cand = NULL, *base = NULL;
	size_t nc = 0, nb = 0;
	struct gate_timing t;
	bool beats = true;
	/* each side's rounds in its variant's time (tv, tb: the race's
	 * median times the variant's own stitch ratio): the ratios scale by
	 * one constant, and so does their quartile */
	if (gate_read_samples(json_array_get(race_rounds, v), &cand, &nc) == 0 && nc >= GATE_SEQ_MIN_PAIRS &&
	    gate_read_samples(json_array_get(race_rounds, b), &base, &nb) == 0 && nb == nc &&
	    gate_timing_stats(base, cand, nc, &t) == 0)
		beats = t.ratio_q25 * (tb / t.base_median) * (t.cand_median / tv) >= 1.0;
	free(cand);
	free(base);
	return beats;
}

bool rule_pick_variant(const double *base, const double *opt, const bool *passed, const json_t *race_rounds,
		       size_t n, double gamma, size_t *best)
{
	*best = 0;
	double tbest = NAN;
	for (size_t v = 0; v < n; v++) {
		double t = passed[v] ? opt[v] : base[v];
		/* a later variant must be faster by gamma, and its race's
		 * rounds must agree: two variants within the noise of each
		 * other keep the earlier (the spec's order) */
		if (!isnan(t) && t > 0 &&
		    (isnan(tbest) || (t * gamma <= tbest && race_beats(race_rounds, v, *best, t, tbest)))) {
			tbest = t;
			*best = v;
		}
	}
	if (*best != 0 && !passed[*best] && !(base[0] / tbest >= gamma)) {
		*best = 0;
		return passed[0];
	}
	return passed[*best] || *best != 0;
}

const char rule_space_header[] =
	"| model | torch.compile (us) | eager (us) | eager faster | hot kernels' ATen ops | analyst |\n"
	"| --- | ---: | ---: | ---: | --- | --- |\n";

/* ops that say nothing about which kernel to keep: views, copies and
 * pointwise math, which Inductor fuses into whatever it generates */
static bool incidental_op(const char *op)
{
	static const char *const names[] = {
		"view", "t", "permute", "clone", "expand", "reshape", "_unsafe_view", "transpose", "unsqueeze",
		"squeeze", "slice", "select", "add", "sub", "mul", "div", "exp", "log", "neg", "relu", "sigmoid",
		"tanh", "pow", "sqrt", "rsqrt", "where", "copy_", "_to_copy", "full", "zeros", "ones", "abs",
		"maximum", "minimum", "clamp", "erf", "lt", "gt", "le", "ge", "eq", "ne", "convert_element_type",
	};
	if (strncmp(op, "aten.", 5) != 0)
		return true; /* prims.*: a decomposition's inside */
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(op + 5, names[i]) == 0)
			return true;
	return false;
}

/* the hot kernels' distinctive ops, in profile order, once each */
static json_t *space_ops(const json_t *profile_meas)
{
	json_t *ops = json_array();
	size_t i, j;
	json_t *row, *op;
	json_array_foreach(json_object_get(profile_meas, "rows"), i, row) {
		if (rule_num(row, "share") < 0.05)
			continue;
		json_array_foreach(json_object_get(row, "aten"), j, op) {
			const char *o = json_string_value(op);
			bool seen = false;
			for (size_t k = 0; o && k < json_array_size(ops); k++)
				seen |= strcmp(json_string_value(json_array_get(ops, k)), o) == 0;
			if (o && !seen && !incidental_op(o))
				json_array_append_new(ops, json_string(o));
		}
	}
	return ops;
}

/* compiled over eager in a profile's side-by-side run; NAN when absent.
 * Device spans where the profile has them: an ATen fallback changes the
 * kernels, not the host overhead of the compiled code's wrapper, which the
 * event times include (DESIGN-NOTES.md, "The implementation-space level
 * adds a variant of its own") */
static double eager_ratio(const json_t *profile_meas, double *cn, double *en)
{
	const json_t *e = json_object_get(profile_meas, "eager");
	*cn = rule_num(e, "compiled_device_ns");
	*en = rule_num(e, "eager_device_ns");
	if (isnan(*cn) || isnan(*en) || *cn <= 0 || *en <= 0) {
		*cn = rule_num(e, "compiled_ns");
		*en = rule_num(e, "eager_ns");
	}
	if (isnan(*cn) || isnan(*en) || *en <= 0)
		return NAN;
	return *cn / *en;
}

/* the choice, from each declared variant's compiled-over-eager ratio and the
 * first's distinctive ops (stolen) */
static json_t *space_pick(const struct kopt_model *m, const double *ratio, size_t n, double gamma, json_t *ops)
{
	bool ok = m->kind == KOPT_MODEL_TORCH && n > 0 && json_array_size(ops) > 0;
	for (size_t v = 0; ok && v < m->nvariants; v++)
		ok = m->variants[v].naten_fallback == 0; /* else the spec chose */
	for (size_t v = 0; ok && v < n; v++)
		ok = !isnan(ratio[v]) && ratio[v] >= gamma;
	if (!ok) {
		json_decref(ops);
		return NULL;
	}
	return ops;
}

json_t *rule_space_pick(const struct kopt_model *m, const json_t *const *meas, size_t n, double gamma)
{
	double *ratio = xcalloc(n + 1, sizeof *ratio), cn, en;
	for (size_t v = 0; v < n; v++)
		ratio[v] = eager_ratio(meas[v], &cn, &en);
	json_t *r = space_pick(m, ratio, n, gamma, n ? space_ops(meas[0]) : json_array());
	free(ratio);
	return r;
}

/* whether a cuDNN call's shape (vendor_plan.describe: "N=.. C=.. H=.. W=..
 * K=.. RxS stride S pad P[ groups G]") is a 1x1 convolution of stride 1,
 * no padding and one group */
static bool pointwise_conv(const char *shape)
{
	static const char one[] = " 1x1 stride 1 pad 0";
	const char *p = shape ? strstr(shape, one) : NULL;
	if (!p)
		return false;
	const char after = p[sizeof one - 1];
	return (after == '\0' || after == ' ') && !strstr(shape, " groups ");
}

/* the share of the device time in the profile's vendor calls that take()
 * admits (each by its time and count), capped at 1; 0 without a device time */
static double calls_share(const json_t *profile_meas, bool (*take)(const json_t *call))
{
	double dev = rule_num(profile_meas, "device_ns_per_call"), ns = 0;
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(json_object_get(profile_meas, "vendor"), "calls"), i, c) {
		double t = rule_num(c, "torch_ns");
		json_int_t count = json_integer_value(json_object_get(c, "count"));
		if (!isnan(t) && t > 0 && take(c))
			ns += t * (double)(count > 0 ? count : 1);
	}
	if (isnan(dev) || dev <= 0)
		return 0;
	return ns / dev < 1 ? ns / dev : 1;
}

static bool cudnn_call(const json_t *call)
{
	const char *lib = json_string_value(json_object_get(call, "lib"));
	return lib && strcmp(lib, "cuDNN") == 0;
}

/* a cuDNN call that is a 1x1 convolution of stride 1 and one group */
static bool pointwise_cudnn_call(const json_t *call)
{
	return cudnn_call(call) && pointwise_conv(json_string_value(json_object_get(call, "shape")));
}

double rule_kernels_ns(const json_t *profile_meas)
{
	double sum = rule_num(profile_meas, "sum_kernel_ns_per_call");
	return sum > 0 ? sum : rule_num(profile_meas, "device_ns_per_call");
}

double rule_cudnn_share(const json_t *profile_meas)
{
	return calls_share(profile_meas, cudnn_call);
}

double rule_conv1x1_share(const json_t *profile_meas)
{
	return calls_share(profile_meas, pointwise_cudnn_call);
}

/* the sides a float32 product needs, m and n, to fill tensor-core tiles
 * (the tf32x3 pass's own rule, products.py's MIN_SIDE: tests/lists.py):
 * tf32x3 lost to cuBLAS's SGEMM at m=10 (a small batch's linear layer,
 * 0.47x on an H100) and won at m=256 n=16384 k=32768 (1.43x) */
#define GEMM32_SIDE 128

/* whether a cuBLAS call's shape (vendor_plan.describe: "m=.. n=.. k=..",
 * batched "Bx m=.. n=.. k=..") has m and n of GEMM32_SIDE or more */
static bool large_product(const char *shape)
{
	const char *p = shape;
	long m, n, k;
	int end = 0;
	if (!p)
		return false;
	if (*p >= '0' && *p <= '9') { /* a batch */
		p += strspn(p, "0123456789");
		if (strncmp(p, "x ", 2) != 0)
			return false;
		p += 2;
	}
	if (sscanf(p, "m=%ld n=%ld k=%ld%n", &m, &n, &k, &end) != 3 || (p[end] != '\0' && p[end] != ' '))
		return false;
	return m >= GEMM32_SIDE && n >= GEMM32_SIDE;
}

/* a cuBLAS product in float32 of m and n GEMM32_SIDE or more */
static bool large_fp32_product(const json_t *call)
{
	const char *lib = json_string_value(json_object_get(call, "lib"));
	const char *dtype = json_string_value(json_object_get(call, "dtype"));
	return lib && strncmp(lib, "cuBLAS", 6) == 0 && dtype && strcmp(dtype, "float32") == 0 &&
	       large_product(json_string_value(json_object_get(call, "shape")));
}

double rule_gemm32_share(const json_t *profile_meas)
{
	return calls_share(profile_meas, large_fp32_product);
}

/* the most torch leaves on the table in a cuDNN call: its time over the
 * probe's best algorithm's; NAN without a call the probe posed */
static double cudnn_left(const json_t *profile_meas)
{
	double left = NAN;
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(json_object_get(profile_meas, "vendor"), "calls"), i, c) {
		const char *lib = json_string_value(json_object_get(c, "lib"));
		double t = rule_num(c, "torch_ns"), b = rule_num(c, "best_ns");
		if (lib && strcmp(lib, "cuDNN") == 0 && t > 0 && b > 0 && (isnan(left) || t / b > left))
			left = t / b;
	}
	return left;
}

/* whether the profile has a pooling kernel that is not Inductor's own (a
 * kernel not of kind "triton" whose name says pool or Pool: ATen's 3-D average
 * pooling, a window over Inductor's limit), or knows nothing of its
 * kernels (no rows) */
static bool aten_pool(const json_t *profile_meas)
{
	const json_t *rows = json_object_get(profile_meas, "rows");
	if (!json_array_size(rows))
		return true;
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		const char *name = json_string_value(json_object_get(row, "name"));
		const char *kind = json_string_value(json_object_get(row, "kind"));
		if (name && (strstr(name, "pool") || strstr(name, "Pool")) && !(kind && strcmp(kind, "triton") == 0))
			return true;
	}
	return false;
}

/* a whole number of the profile's graph facts, absent when it has none */
static long fact(const json_t *facts, const char *key, long absent)
{
	json_t *v = json_object_get(facts, key);
	return json_is_integer(v) ? (long)json_integer_value(v) : absent;
}

void rule_summary_space(struct rule_summary *s, const json_t *profile_meas)
{
	double cn, en;
	s->cudnn_share = rule_cudnn_share(profile_meas);
	s->conv1x1_share = rule_conv1x1_share(profile_meas);
	s->gemm32_share = rule_gemm32_share(profile_meas);
	s->cudnn_left = cudnn_left(profile_meas);
	const json_t *facts = json_object_get(profile_meas, "facts");
	s->facts_known = json_is_object(facts);
	/* a profile without one of the facts that came later has none */
#define FACT_(field, json, key, absent) s->field = fact(facts, json, absent);
	RULE_GRAPH_FACTS(FACT_)
#undef FACT_
	/* the poolings pool_as_pointwise can improve on: those the compiled
	 * code leaves to ATen's kernels (level 1's 3-D average pooling, 3.00x);
	 * where Inductor lowers them itself, the rewrite lost (level 1's 1-D
	 * max pooling, 1.75x slower) and took the variant's place */
	if (!aten_pool(profile_meas))
		s->pools = 0;
	s->eager_known = true;
	s->eager_ratio = eager_ratio(profile_meas, &cn, &en);
	free(s->eager_ops);
	s->eager_ops = NULL;
	if (isnan(s->eager_ratio))
		return;
	json_t *ops = space_ops(profile_meas), *op;
	size_t i;
	struct strbuf sb = STRBUF_INIT;
	json_array_foreach(ops, i, op)
		strbuf_addf(&sb, "%s%s", i ? "," : "", json_string_value(op));
	json_decref(ops);
	s->eager_ops = sb.len ? strbuf_detach(&sb) : NULL;
	strbuf_release(&sb);
}

char *rule_space_line(const json_t *profile_meas)
{
	struct rule_summary s;
	memset(&s, 0, sizeof s);
	rule_summary_space(&s, profile_meas);
	char *text = rule_summary_write(&s);
	rule_summary_release(&s);
	return text;
}

json_t *rule_space_pick_lines(const struct kopt_model *m, const double *ratio, size_t n, const char *ops0, double gamma)
{
	json_t *ops = json_array();
	for (const char *p = ops0; p && *p && strcmp(p, "-") != 0;) {
		size_t len = strcspn(p, ",");
		char *op = xstrndup(p, len);
		json_array_append_new(ops, json_string(op));
		free(op);
		p += len;
		if (*p == ',')
			p++;
	}
	return space_pick(m, ratio, n, gamma, ops);
}

int rule_space_rows(struct strbuf *md, const struct kopt_model *m, const json_t *const *meas, size_t n,
		    double gamma, const char *auto_name)
{
	double cn, en, r = n ? eager_ratio(meas[0], &cn, &en) : NAN;
	if (isnan(r) || r < gamma)
		return 0;
	const char *beats = NULL; /* a declared variant that eager does not beat */
	for (size_t v = 1; v < n && v < m->nvariants && !beats; v++) {
		double c2, e2, r2 = eager_ratio(meas[v], &c2, &e2);
		if (!isnan(r2) && r2 < gamma)
			beats = m->variants[v].name;
	}
	json_t *ops = space_ops(meas[0]), *op;
	size_t i;
	bool declared = false;
	for (size_t v = 0; v < m->nvariants; v++)
		declared |= m->variants[v].naten_fallback > 0;
	struct strbuf list = STRBUF_INIT;
	json_array_foreach(ops, i, op)
		strbuf_addf(&list, "%s\"%s\"", i ? ", " : "", json_string_value(op));
	strbuf_addf(md, "| %s | %.2f | %.2f | %.2fx | %s | ", m->name, cn / 1000.0, en / 1000.0, cn / en,
		    list.len ? list.buf : "-");
	if (declared)
		strbuf_addstr(md, "an ATen-fallback variant is declared |\n");
	else if (auto_name)
		strbuf_addf(md, "eager's kernels beat every declared variant: the agents added variant "
				"`%s`, those ops kept out of Inductor |\n", auto_name);
	else if (beats)
		strbuf_addf(md, "variant `%s` beats eager: nothing to keep |\n", beats);
	else if (list.len && (!m->agents || m->agents->auto_variants))
		strbuf_addstr(md, "eager's kernels win: where they beat every declared variant, the agents "
				  "add variant `" RULE_AUTO_VARIANT "`, those ops kept out of Inductor |\n");
	else if (list.len)
		strbuf_addf(md, "eager's kernels win: try `variant aten { aten_fallback = [%s] }` |\n", list.buf);
	else
		strbuf_addstr(md, "eager wins, but no hot kernel names an op to keep |\n");
	strbuf_release(&list);
	json_decref(ops);
	return 1;
}
