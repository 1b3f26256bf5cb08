/*
 * rules/proto.c: the protocol objects a step sends the worker
 * (PROTOCOL.md "Common objects"): the model, its compile variant and the
 * gates, each block's fields from lang/fields.h's lists.
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "proto.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/util.h"
#include "../gates/gates.h"
#include "../lang/fields.h"
#include "plan.h"

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
