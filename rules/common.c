/* rules/common.c: the rule table and helpers shared by the rules (rules.h) */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "rules.h"
#include "../gates/gates.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../engine/outdir.h"

int rule_fail(struct rule_run *run, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(run->error);
	run->error = xvasprintf(fmt, ap);
	va_end(ap);
	return RULE_FAIL;
}

json_t *rule_model_json(const struct rule_model *dm)
{
	const struct kopt_model *m = dm->spec;
	char *abs = NULL;
	if (m->path && m->path[0] != '/') {
		char cwd[4096];
		if (getcwd(cwd, sizeof cwd))
			abs = xasprintf("%s/%s", cwd, m->path);
	}
	json_t *o = json_pack("{s:s, s:s, s:s}", "name", m->name, "kind",
			      lang_model_kind_names[m->kind < KOPT_MODEL_KIND_COUNT ? m->kind : 0],
			      "path", abs ? abs : m->path ? m->path : "");
	free(abs);
	/* a shape's names and values (runtime/python/kopt/loader.py) */
	json_t *set = dm->shape ? json_object() : NULL;
	for (size_t i = 0; dm->shape && i < dm->shape->nset; i++) {
		json_t *v = json_loads(dm->shape->set[i].json, JSON_DECODE_ANY, NULL);
		json_object_set_new(set, dm->shape->set[i].key, v ? v : json_null());
	}
	if (set)
		json_object_set_new(o, "shape", set);
	return o;
}

/* a field's value for the worker; NULL for a type the worker is not sent */
static json_t *field_json(const struct lang_field *f, const void *base)
{
	const char *p = (const char *)base + f->off;
	switch (f->type) {
	case LANG_F_INT: return json_integer(*(const int *)p);
	case LANG_F_LONG: return json_integer(*(const long *)p);
	case LANG_F_U64: return json_integer((json_int_t) * (const uint64_t *)p);
	case LANG_F_REAL:
	case LANG_F_FRACTION:
	case LANG_F_DURATION: return json_real(*(const double *)p);
	case LANG_F_BOOL: return json_boolean(*(const bool *)p);
	case LANG_F_STR:
	case LANG_F_PROVIDER:
	case LANG_F_MODE: {
		const char *v = *(char *const *)p;
		return v ? json_string(v) : json_null();
	}
	case LANG_F_PRECISION: {
		enum kopt_precision x = *(const enum kopt_precision *)p;
		return json_string(lang_precision_names[x < KOPT_PRECISION_COUNT ? x : 0]);
	}
	case LANG_F_OPTIONS: { /* the values are JSON text already */
		const struct kopt_option *o = *(struct kopt_option *const *)p;
		size_t n = *(const size_t *)((const char *)base + f->noff);
		json_t *opts = json_object();
		for (size_t i = 0; i < n; i++) {
			json_t *val = json_loads(o[i].json, JSON_DECODE_ANY, NULL);
			json_object_set_new(opts, o[i].key, val ? val : json_string(o[i].json));
		}
		return opts;
	}
	case LANG_F_STRLIST: {
		char *const *v = *(char **const *)p;
		size_t n = *(const size_t *)((const char *)base + f->noff);
		json_t *a = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(a, json_string(v[i]));
		return a;
	}
	default:
		return NULL;
	}
}

/* every field of a block that the worker can be sent, into o, in the list's order */
static json_t *fields_json(json_t *o, const struct lang_fields *fs, const void *base)
{
	for (size_t i = 0; i < fs->n; i++) {
		json_t *v = field_json(&fs->f[i], base);
		if (v)
			json_object_set_new(o, fs->f[i].name, v);
	}
	return o;
}

json_t *rule_variant_json(const struct kopt_variant *v)
{
	return fields_json(json_pack("{s:s}", "name", v->name), &lang_variant_fields, v);
}

json_t *rule_gates_json(const struct kopt_gates *g)
{
	json_t *o = fields_json(json_object(), &lang_gates_fields, g);
	/* derived, not a field: the fewest pairs the perf gate accepts (gates.h) */
	json_object_set_new(o, "min_pairs", json_integer((json_int_t)gate_min_pairs(g)));
	return o;
}

/* each field of a block with LANG_KEY as the ingredient "param:NAME":
 * numbers in decimal (doubles as %.17g, exact), strings as they are, lists
 * as their items each followed by ';'. One buffer serves the block's
 * lists, as it always has: an empty list is the absent marker until a list
 * before it had items, then the empty string (changing that would change
 * every variant's key). */
static void key_fields(struct hash_key *k, const struct lang_fields *fs, const void *base)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < fs->n; i++) {
		const struct lang_field *f = &fs->f[i];
		if (!(f->flags & LANG_KEY))
			continue;
		char name[64];
		snprintf(name, sizeof name, "param:%s", f->name);
		const char *p = (const char *)base + f->off;
		size_t n = f->noff ? *(const size_t *)((const char *)base + f->noff) : 0;
		strbuf_reset(&sb);
		switch (f->type) {
		case LANG_F_INT: hash_key_int(k, name, *(const int *)p); break;
		case LANG_F_LONG: hash_key_int(k, name, *(const long *)p); break;
		case LANG_F_U64: hash_key_int(k, name, (long long)*(const uint64_t *)p); break;
		case LANG_F_REAL:
		case LANG_F_FRACTION:
		case LANG_F_DURATION: hash_key_double(k, name, *(const double *)p); break;
		case LANG_F_BOOL: hash_key_int(k, name, *(const bool *)p); break;
		case LANG_F_PRECISION: {
			enum kopt_precision x = *(const enum kopt_precision *)p;
			hash_key_str(k, name, lang_precision_names[x < KOPT_PRECISION_COUNT ? x : 0]);
			break;
		}
		case LANG_F_OPTIONS: /* KEY=JSON; for each, in the spec's order */
			for (size_t j = 0; j < n; j++)
				strbuf_addf(&sb, "%s=%s;", (*(struct kopt_option *const *)p)[j].key,
					    (*(struct kopt_option *const *)p)[j].json);
			hash_key_str(k, name, sb.buf);
			break;
		case LANG_F_STRLIST: /* NAME; for each */
			for (size_t j = 0; j < n; j++)
				strbuf_addf(&sb, "%s;", (*(char **const *)p)[j]);
			hash_key_str(k, name, sb.buf);
			break;
		case LANG_F_STR:
		case LANG_F_PROVIDER:
		case LANG_F_MODE: hash_key_str(k, name, *(char *const *)p); break;
		default: kopt_die("no key form for field '%s'", f->name);
		}
	}
	strbuf_release(&sb);
}

void rule_key_variant(struct hash_key *k, const struct kopt_variant *v)
{
	key_fields(k, &lang_variant_fields, v);
}

void rule_key_gates(struct hash_key *k, const struct kopt_gates *g)
{
	key_fields(k, &lang_gates_fields, g);
}

void rule_key_tolerances(struct hash_key *k, const struct kopt_gates *g)
{
	hash_key_double(k, "param:atol", g->atol);
	hash_key_double(k, "param:rtol", g->rtol);
	hash_key_double(k, "param:atol_half", g->atol_half);
	hash_key_double(k, "param:rtol_half", g->rtol_half);
}

#define PINNED_VERSION 2

/* whether torch tunes a pinned config of this variant's Triton kernels at
 * its first launch: every max-autotune mode turns coordinate descent on,
 * and so does the option itself */
bool rule_max_autotune(const char *mode)
{
	return mode && strncmp(mode, "max-autotune", 12) == 0;
}

bool rule_mode_graphs(const char *mode)
{
	return mode && (strcmp(mode, "reduce-overhead") == 0 || strcmp(mode, "max-autotune") == 0);
}

static bool tunes_pinned(const struct kopt_variant *v)
{
	bool on = rule_max_autotune(v->mode);
	for (size_t i = 0; i < v->noptions; i++)
		if (strcmp(v->options[i].key, "coordinate_descent_tuning") == 0)
			on = strcmp(v->options[i].json, "true") == 0;
	return on;
}

void rule_key_pinned(struct hash_key *k, const struct kopt_variant *v)
{
	if (tunes_pinned(v))
		hash_key_int(k, "param:pinned", PINNED_VERSION);
}

void rule_key_input(struct hash_key *k, const struct dag_node *dep)
{
	char buf[512];
	const char *kind = dep->rule->name;
	size_t kl = strlen(kind), pl = strlen(dep->path);
	if (6 + kl + 1 + pl + 1 > sizeof buf) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "input:");
		dag_describe(dep, &sb);
		hash_key_hash(k, sb.buf, dep->out);
		strbuf_release(&sb);
		return;
	}
	memcpy(buf, "input:", 6);
	memcpy(buf + 6, kind, kl);
	buf[6 + kl] = ' ';
	memcpy(buf + 7 + kl, dep->path, pl + 1);
	hash_key_hash(k, buf, dep->out);
}

int rule_object(struct rule_run *run, const char *name, const void *data, size_t n, kopt_hash *h)
{
	kopt_hash tmp;
	if (!h)
		h = &tmp;
	if (cache_object_put(run->dag->cache, data, n, h) < 0)
		return -1;
	char hex[HASH_HEX];
	hash_hex(*h, hex);
	json_object_set_new(run->objects, name, json_string(hex));
	return 0;
}

/* the folder under the output folder where node n's outputs go */
static const char *node_dir(const struct dag_node *n)
{
	if (rule_target_of(n))
		return rule_target_of(n)->name;
	return rule_model_of(n) ? rule_model_dir(rule_model_of(n)) : NULL;
}

/* NAME when rel is "<node's folder>/NAME" with NAME one path component, else NULL */
static const char *own_name(const struct dag_node *n, const char *rel)
{
	const char *dir = node_dir(n);
	size_t dl = dir ? strlen(dir) : 0;
	if (!dir || strncmp(rel, dir, dl) != 0 || rel[dl] != '/' || !outdir_rel_ok(rel))
		return NULL;
	const char *name = rel + dl + 1;
	return outdir_component_ok(name, strlen(name)) ? name : NULL;
}

/*
 * A result's "outputs" maps each output's path under the output folder,
 * "<its step's folder>/<name>", to {"hash": object, "size": bytes} (before
 * the sizes: to the object's hash alone). The path is checked against the
 * step's own folder when written and when restored.
 */
int rule_output(struct rule_run *run, const char *rel, const char *data, size_t n)
{
	if (!own_name(run->node, rel)) {
		kopt_error("internal: output '%s' is not a file name in its step's folder '%s'", rel,
			   node_dir(run->node) ? node_dir(run->node) : "");
		return -1;
	}
	kopt_hash h;
	if (cache_object_put(run->dag->cache, data, n, &h) < 0)
		return -1;
	char hex[HASH_HEX];
	hash_hex(h, hex);
	json_object_set_new(run->outputs, rel, json_pack("{s:s, s:I}", "hash", hex, "size", (json_int_t)n));
	return outdir_write(run->dag->out_dir, rel, data, n);
}

int rule_restore_outputs(struct dag *d, struct dag_node *n)
{
	const char *rel;
	json_t *v;
	int ret = 0;
	if (!n->manifest)
		return -1;
	json_t *outs = dag_manifest_field(n->manifest, n->manifest_len, "outputs");
	if (!json_is_object(outs)) {
		/* these steps always write outputs: a record without a readable list is corrupt */
		struct strbuf what = STRBUF_INIT;
		dag_describe(n, &what);
		kopt_warn("%s/actions: corrupt cache entry for %s: its outputs cannot be read; the step will "
			  "run again", cache_path(d->cache), what.buf);
		strbuf_release(&what);
		json_decref(outs);
		return -1;
	}
	json_object_foreach(outs, rel, v) {
		json_t *hv = json_is_object(v) ? json_object_get(v, "hash") : v;
		json_t *sv = json_is_object(v) ? json_object_get(v, "size") : NULL;
		kopt_hash h;
		if (!own_name(n, rel) || !json_is_string(hv) || hash_parse(json_string_value(hv), &h) < 0 ||
		    (sv && (!json_is_integer(sv) || json_integer_value(sv) < 0))) {
			struct strbuf what = STRBUF_INIT;
			dag_describe(n, &what);
			kopt_warn("%s/actions: corrupt cache entry for %s: output '%s' is not a file name in "
				  "the step's folder '%s'; the step will run again", cache_path(d->cache), what.buf,
				  rel, node_dir(n) ? node_dir(n) : "");
			strbuf_release(&what);
			ret = -1;
			break;
		}
		uint64_t size = sv ? (uint64_t)json_integer_value(sv) : UINT64_MAX;
		const char *why;
		enum outdir_state st = outdir_check(d->out_dir, rel, size, h, &why);
		if (st == OUTDIR_SAME)
			continue;
		struct strbuf sb = STRBUF_INIT;
		if (cache_object_get(d->cache, h, &sb) < 0 || (sv && sb.len != size)) {
			ret = -1;
		} else {
			if (st == OUTDIR_DIFFERS)
				kopt_warn("'%s/%s' does not match the build's output (%s); restored from the cache",
					  d->out_dir, rel, why);
			if (outdir_write(d->out_dir, rel, sb.buf, sb.len) < 0)
				ret = -1;
		}
		strbuf_release(&sb);
	}
	json_decref(outs);
	return ret;
}

static void print_numbers_in(FILE *out, json_t *nums, const char *prefix)
{
	const char *k;
	json_t *v;
	json_object_foreach(nums, k, v) {
		char *name = xasprintf("%s%s", prefix, k);
		if (json_is_number(v))
			fprintf(out, "  %-22s %g\n", name, json_number_value(v));
		else if (json_is_string(v) && strcmp(k, "raw_numbers") != 0)
			fprintf(out, "  %-22s %s\n", name, json_string_value(v));
		else if (json_is_object(v) && strcmp(k, "worker") != 0) {
			char *sub = xasprintf("%s.", name);
			print_numbers_in(out, v, sub);
			free(sub);
		}
		free(name);
	}
}

void rule_print_numbers(FILE *out, json_t *nums)
{
	print_numbers_in(out, nums, "");
}

json_t *rule_no_candidate(void)
{
	/* the same for every reason (verify knows it by its hash); the
	 * reason is the proposal's measurement */
	return json_pack("{s:b}", "none", 1);
}

const char *rule_model_dir(const struct rule_model *dm)
{
	return dm->dir;
}

double rule_num(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

json_t *rule_profile_meas(struct dag *d, const struct rule_mv *mv)
{
	return json_object_get(dag_result(d, mv->profile), "meas");
}

json_t *rule_num_json(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

json_t *rule_inventory_entry(const json_t *res, const char *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(json_object_get(res, "stable"), "kernels"), i, e) {
		const char *nm = json_string_value(json_object_get(e, "name"));
		if (name && nm && strcmp(nm, name) == 0)
			return e;
	}
	return NULL;
}

bool rule_pick_variant(const double *base, const double *opt, const bool *passed, size_t n, double gamma,
		       size_t *best)
{
	*best = 0;
	double tbest = NAN;
	for (size_t v = 0; v < n; v++) {
		double t = passed[v] ? opt[v] : base[v];
		/* a later variant must be faster by gamma: two variants within
		 * the noise of each other keep the earlier (the spec's order) */
		if (!isnan(t) && t > 0 && (isnan(tbest) || t * gamma <= tbest)) {
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

const char rule_vendor_header[] =
	"| model | call | shape | calls | torch (us) | vendor's first pick (us) | vendor's best (us) | analyst |\n"
	"| --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n";

void rule_vendor_rows(struct strbuf *md, const char *label, const json_t *calls, double gamma)
{
	size_t i;
	json_t *c;
	json_array_foreach(calls, i, c) {
		const char *op = json_string_value(json_object_get(c, "op"));
		const char *lib = json_string_value(json_object_get(c, "lib"));
		const char *shape = json_string_value(json_object_get(c, "shape"));
		const char *skipped = json_string_value(json_object_get(c, "skipped"));
		strbuf_addf(md, "| %s | %s %s | %s | %lld | ", label, lib ? lib : "-", op ? op : "-", shape ? shape : "-",
			    (long long)json_integer_value(json_object_get(c, "count")));
		double tn = rule_num(c, "torch_ns"), hn = rule_num(c, "heuristic_ns"), bn = rule_num(c, "best_ns");
		if (skipped || isnan(tn) || isnan(bn)) {
			strbuf_addf(md, "- | - | - | not posed: %s |\n", skipped ? skipped : "no algorithm ran");
			continue;
		}
		strbuf_addf(md, "%.2f | ", tn / 1000.0);
		if (isnan(hn))
			strbuf_addstr(md, "- | ");
		else
			strbuf_addf(md, "%.2f | ", hn / 1000.0);
		strbuf_addf(md, "%.2f (rank %lld) | ", bn / 1000.0,
			    (long long)json_integer_value(json_object_get(c, "best_rank")));
		if (bn > 0 && tn / bn >= gamma)
			strbuf_addf(md, "leaves %.0f%% on the table: %s |\n", 100.0 * (tn - bn) / tn,
				    lib && strcmp(lib, "cuDNN") == 0
					    ? "a variant with cudnn_benchmark = true may find it"
					    : "torch picks its own cuBLAS algorithm; a max-autotune variant tries Triton GEMMs");
		else if (tn > 0 && bn / tn >= gamma)
			strbuf_addf(md, "torch's pick beats every algorithm the heuristic ranked (%zu run) |\n",
				    json_array_size(json_object_get(c, "algos")));
		else
			strbuf_addstr(md, "at the vendor's best (within gamma) |\n");
	}
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

double rule_cudnn_share(const json_t *profile_meas)
{
	double dev = rule_num(profile_meas, "device_ns_per_call"), ns = 0;
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(json_object_get(profile_meas, "vendor"), "calls"), i, c) {
		const char *lib = json_string_value(json_object_get(c, "lib"));
		double t = rule_num(c, "torch_ns");
		json_int_t count = json_integer_value(json_object_get(c, "count"));
		if (lib && strcmp(lib, "cuDNN") == 0 && !isnan(t) && t > 0)
			ns += t * (double)(count > 0 ? count : 1);
	}
	if (isnan(dev) || dev <= 0)
		return 0;
	return ns / dev < 1 ? ns / dev : 1;
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

const struct dag_node *rule_failure_of(const struct dag_node *n)
{
	while (n && (n->flags & DAG_UPFAIL)) {
		const struct dag_node *next = NULL;
		for (uint32_t i = 0; i < n->ndeps && !next; i++)
			if ((n->deps[i].node->flags & DAG_FAILED) && !(n->deps[i].flags & DAG_EDGE_SOFT))
				next = n->deps[i].node;
		if (!next)
			break;
		n = next;
	}
	return n;
}
