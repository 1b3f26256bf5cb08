/*
 * lang/fields.c: the lists of fields.h as tables, their words' names and
 * the blocks' defaults; and the checker's side of them, setting a block's
 * fields from a declaration: types, units, ranges, words, Inductor options,
 * llm(...) and roles, variant blocks (shape blocks: shape.c), unknown and
 * repeated fields.
 */
#define _POSIX_C_SOURCE 200809L
#include "load.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEVICE_ROW(...) LANG_ROW(struct kopt_device, __VA_ARGS__)
#define AGENTS_ROW(...) LANG_ROW(struct kopt_agents, __VA_ARGS__)
#define LLM_ROW(...) LANG_ROW(struct kopt_llm, __VA_ARGS__)
#define GATES_ROW(...) LANG_ROW(struct kopt_gates, __VA_ARGS__)
#define VARIANT_ROW(...) LANG_ROW(struct kopt_variant, __VA_ARGS__)

static const struct lang_field device_rows[] = { KOPT_DEVICE_FIELDS(DEVICE_ROW) };
static const struct lang_field agents_rows[] = { KOPT_AGENTS_FIELDS(AGENTS_ROW) KOPT_ROLES(LANG_ROLE_ROW) };
static const struct lang_field llm_rows[] = { KOPT_LLM_FIELDS(LLM_ROW) };
static const struct lang_field gates_rows[] = { KOPT_GATES_FIELDS(GATES_ROW) };
static const struct lang_field variant_rows[] = { KOPT_VARIANT_FIELDS(VARIANT_ROW) };

#define TABLE(block, rows) { block, rows, sizeof rows / sizeof rows[0] }
const struct lang_fields lang_device_fields = TABLE("device", device_rows);
const struct lang_fields lang_agents_fields = TABLE("agents", agents_rows);
const struct lang_fields lang_llm_fields = TABLE("llm", llm_rows);
const struct lang_fields lang_gates_fields = TABLE("gates", gates_rows);
const struct lang_fields lang_variant_fields = TABLE("variant", variant_rows);

#define ROLE_NAME(name, id, doc) name,
#define PRECISION_NAME(name, id) name,
#define MODEL_KIND_NAME(kw, id, name) name,
const char *const lang_role_names[KOPT_ROLE_COUNT] = { KOPT_ROLES(ROLE_NAME) };
const char *const lang_precision_names[KOPT_PRECISION_COUNT] = { KOPT_PRECISIONS(PRECISION_NAME) };
const char *const lang_model_kind_names[KOPT_MODEL_KIND_COUNT] = { KOPT_MODEL_KINDS(MODEL_KIND_NAME) };

const struct kopt_device lang_device_default = KOPT_DEVICE_INIT;
const struct kopt_agents lang_agents_default = KOPT_AGENTS_INIT;
const struct kopt_gates lang_gates_default = KOPT_GATES_INIT;

/* ---- the checker: setting fields ---- */

#define llm_fields lang_llm_fields.f
#define NLLM lang_llm_fields.n

static void set_role(struct loader *L, const char *field, struct kopt_role_cfg *r, const struct ast_value *x,
		     const char *dir);
static void do_variant(struct loader *L, const struct ast_field *it, struct vlist *vl, const char *dir);

static const char *type_phrase(enum lang_ftype t)
{
	switch (t) {
	case LANG_F_INT: case LANG_F_LONG: case LANG_F_U64: return "a whole number";
	case LANG_F_REAL: return "a number";
	case LANG_F_FRACTION: return "a number or a percentage";
	case LANG_F_DURATION: return "a duration such as 30s or 10m";
	case LANG_F_BOOL: return "true or false";
	case LANG_F_OPTIONS: return "a map { \"key\" = value ... }";
	case LANG_F_STRLIST: return "a list of strings";
	case LANG_F_ENVNAMES: return "a list of variable names";
	case LANG_F_ROOTS: return "a list of folders";
	default: return "a string";
	}
}

static bool in_range(const struct lang_field *d, double x)
{
	return (d->flags & LANG_LO_OPEN ? x > d->lo : x >= d->lo) && x <= d->hi;
}

static void range_error(struct loader *L, const struct lang_field *d, const struct ast_value *x)
{
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;
	if (isfinite(d->lo)) {
		strbuf_addstr(&want, d->flags & LANG_LO_OPEN ? "> " : ">= ");
		lang_fmt_num(&want, d->lo);
	}
	if (isfinite(d->hi)) {
		strbuf_addstr(&want, want.len ? " and <= " : "<= ");
		lang_fmt_num(&want, d->hi);
	}
	lang_fmt_num(&got, x->num);
	if (d->type == LANG_F_DURATION)
		strbuf_addch(&got, 's');
	/* a fraction given as a bare percentage (hot = 5): the percentage
	 * fits, where it does */
	bool pct = d->type == LANG_F_FRACTION && x->unit == UNIT_NONE && in_range(d, x->num / 100);
	if (pct)
		lang_err(&L->D, &x->loc, "'%s' must be %s, not %s (did you mean %s%%?)", d->name, want.buf, got.buf,
			 got.buf);
	else
		lang_err(&L->D, &x->loc, "'%s' must be %s, not %s", d->name, want.buf, got.buf);
	strbuf_release(&want);
	strbuf_release(&got);
}

/* a number field from x; an error is the loader's (lang_err), which its caller counts */
static void set_number(struct loader *L, const struct lang_field *d, void *p, const struct ast_value *x)
{
	char buf[64];
	bool unit_ok = x->unit == UNIT_NONE || (d->type == LANG_F_FRACTION && x->unit == UNIT_PERCENT) ||
		       (d->type == LANG_F_DURATION && x->unit == UNIT_DURATION);
	if (!unit_ok) {
		lang_err(&L->D, &x->loc, "'%s' wants %s, not %s", d->name, type_phrase(d->type), lang_what(x, buf));
		return;
	}
	bool whole = d->type == LANG_F_INT || d->type == LANG_F_LONG || d->type == LANG_F_U64;
	if (whole && x->num != floor(x->num)) {
		struct strbuf got = STRBUF_INIT;
		lang_fmt_num(&got, x->num);
		lang_err(&L->D, &x->loc, "'%s' wants a whole number, not %s", d->name, got.buf);
		strbuf_release(&got);
		return;
	}
	if (d->type == LANG_F_U64 && x->is_int && x->num >= 0) {
		*(uint64_t *)p = x->u;
		return;
	}
	if (!in_range(d, x->num)) {
		range_error(L, d, x);
		return;
	}
	switch (d->type) {
	case LANG_F_INT: *(int *)p = (int)x->num; break;
	case LANG_F_LONG: *(long *)p = (long)x->num; break;
	case LANG_F_U64: *(uint64_t *)p = (uint64_t)x->num; break;
	default: *(double *)p = x->num; break;
	}
}

static const char *const providers[] = { "openai", "anthropic" };
static const char *const modes[] = { "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs" };

static int pick(const char *word, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(word, words[i]) == 0)
			return (int)i;
	return -1;
}

static void json_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addf(sb, "\\%c", *p);
		else if (*p == '\n')
			strbuf_addstr(sb, "\\n");
		else if (*p == '\t')
			strbuf_addstr(sb, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			strbuf_addf(sb, "\\u%04x", *p);
		else
			strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '"');
}

/* how deep an option value may nest: a variable whose map names the
 * variable itself would nest without end */
#define OPTION_DEPTH 64

static int to_json(struct loader *L, struct strbuf *sb, const struct ast_value *x0, int depth)
{
	const struct ast_value *x = lang_deref(L, x0);
	char buf[64];
	if (!x)
		return -1;
	if (depth > OPTION_DEPTH) {
		lang_err(&L->D, &x0->loc, "an option value nested more than %d deep (does a variable hold itself?)",
			 OPTION_DEPTH);
		return -1;
	}
	switch (x->kind) {
	case AST_STR: json_str(sb, x->str); return 0;
	case AST_NUM: lang_fmt_num(sb, x->num); return 0;
	case AST_BOOL: strbuf_addstr(sb, x->b ? "true" : "false"); return 0;
	case AST_LIST:
	case AST_MAP: {
		int r = 0;
		strbuf_addch(sb, x->kind == AST_LIST ? '[' : '{');
		for (size_t i = 0; i < x->nelems; i++) {
			if (i)
				strbuf_addstr(sb, ", ");
			if (x->kind == AST_MAP) {
				json_str(sb, x->elems[i].name);
				strbuf_addstr(sb, ": ");
			}
			if (to_json(L, sb, x->elems[i].value, depth + 1) < 0) {
				r = -1;
				break;
			}
		}
		strbuf_addch(sb, x->kind == AST_LIST ? ']' : '}');
		return r;
	}
	default:
		lang_err(&L->D, &x0->loc, "an option value is a string, number, boolean, list or map, not %s", lang_what(x, buf));
		return -1;
	}
}

static void set_options(struct loader *L, struct kopt_variant *v, const struct ast_value *x)
{
	struct smap keys = { 0 };
	for (size_t i = 0; i < x->nelems; i++) {
		const struct ast_field *f = &x->elems[i];
		size_t *first = lang_smap_get(&keys, f->name);
		if (first) {
			lang_err(&L->D, &f->name_loc, "duplicate option '%s'", f->name);
			lang_note(&L->D, &x->elems[*first].name_loc, "'%s' was first set here", f->name);
			continue;
		}
		lang_smap_put(&keys, f->name, i);
		struct strbuf sb = STRBUF_INIT;
		if (to_json(L, &sb, f->value, 1) < 0) {
			strbuf_release(&sb);
			continue;
		}
		v->options = xrealloc(v->options, (v->noptions + 1) * sizeof *v->options);
		v->options[v->noptions].key = xstrdup(f->name);
		v->options[v->noptions].json = strbuf_detach(&sb);
		v->noptions++;
	}
	lang_smap_release(&keys);
}

/* an ATen operator's name, added to the variant at base */
static void add_aten(struct loader *L, const struct lang_field *d, void *base, const struct ast_value *x0)
{
	struct kopt_variant *v = base;
	const struct ast_value *x = lang_deref(L, x0);
	char buf[64];
	if (!x)
		return;
	if (x->kind != AST_STR) {
		lang_err(&L->D, &x0->loc, "'%s' wants %s, not %s", d->name, type_phrase(d->type), lang_what(x, buf));
		return;
	}
	if (strncmp(x->str, "aten.", 5) != 0 || !x->str[5]) {
		lang_err(&L->D, &x0->loc, "'%s' is not an ATen operator name such as aten.avg_pool2d", x->str);
		return;
	}
	v->aten_fallback = xrealloc(v->aten_fallback, (v->naten_fallback + 1) * sizeof(char *));
	v->aten_fallback[v->naten_fallback++] = xstrdup(x->str);
}

/* a folder outside the spec's that it may read (lang/paths.c), added to
 * the list at d's place */
static void add_root(struct loader *L, const struct lang_field *d, void *base, const struct ast_value *x,
		     const char *dir)
{
	char ***v = (char ***)((char *)base + d->off);
	size_t *n = (size_t *)((char *)base + d->noff);
	*v = xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = xstrdup(x->str);
	lang_allow_root(L, &x->loc, dir, x->str);
}

/* a name of an environment variable, added to the list at d's place */
static void add_envname(struct loader *L, const struct lang_field *d, void *base, const struct ast_value *x0)
{
	const struct ast_value *x = lang_deref(L, x0);
	char buf[64];
	if (!x)
		return;
	if (x->kind != AST_STR) {
		lang_err(&L->D, &x0->loc, "'%s' wants %s, not %s", d->name, type_phrase(d->type), lang_what(x, buf));
		return;
	}
	const char *s = x->str;
	bool ok = (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_';
	for (; ok && *s; s++)
		ok = (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_';
	if (!ok) {
		lang_err(&L->D, &x0->loc, "'%s' is not an environment variable's name", x->str);
		return;
	}
	char ***v = (char ***)((char *)base + d->off);
	size_t *n = (size_t *)((char *)base + d->noff);
	*v = xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = xstrdup(x->str);
}

static void set_source(struct loader *L, struct pdecl *pd, const struct ast_value *x, const char *dir)
{
	struct stat st;
	pd->has_source = true;
	free(pd->source);
	free(pd->path);
	pd->source = xstrdup(x->str);
	pd->path = lang_join(dir, x->str);
	if (lang_path_inside(L, &x->loc, "source", pd->path) < 0)
		return;
	if (stat(pd->path, &st) < 0)
		lang_err(&L->D, &x->loc, "cannot read source '%s': %s", pd->path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		lang_err(&L->D, &x->loc, "source '%s' is not a regular file", pd->path);
}

static void set_word(struct loader *L, const struct lang_field *d, void *p, const struct ast_value *x)
{
	char buf[64];
	if (x->kind != AST_NAME && x->kind != AST_STR) {
		lang_err(&L->D, &x->loc, "'%s' wants a word, not %s", d->name, lang_what(x, buf));
		return;
	}
	const char *const *words = d->type == LANG_F_PRECISION ? lang_precision_names : providers;
	size_t n = d->type == LANG_F_PRECISION ? KOPT_PRECISION_COUNT : 2;
	int i = pick(x->str, words, n);
	if (i < 0) {
		char *hint = lang_hint(x->str, words, n);
		if (d->type == LANG_F_PRECISION)
			lang_err(&L->D, &x->loc, "unknown precision '%s'%s; use strict, tf32 or loose", x->str, hint);
		else
			lang_err(&L->D, &x->loc, "unknown llm provider '%s'%s; use openai or anthropic", x->str, hint);
		free(hint);
		return;
	}
	if (d->type == LANG_F_PRECISION) {
		*(enum kopt_precision *)p = (enum kopt_precision)i;
	} else {
		free(*(char **)p);
		*(char **)p = xstrdup(words[i]);
	}
}

static void set_field(struct loader *L, const struct lang_field *d, void *base, const struct ast_value *x0,
		      const char *dir)
{
	void *p = (char *)base + d->off;
	char buf[64];
	switch (d->type) {
	case LANG_F_REF_DEVICE:
	case LANG_F_REF_AGENTS:
	case LANG_F_REF_GATES: {
		struct ref *r = p;
		if (x0->kind != AST_NAME) {
			static const char *const of[] = { "a device", "an agents set", "a gates set" };
			lang_err(&L->D, &x0->loc, "'%s' wants the name of %s, not %s", d->name,
				 of[d->type - LANG_F_REF_DEVICE], lang_what(x0, buf));
			return;
		}
		free(r->name);
		r->name = xstrdup(x0->str);
		r->loc = x0->loc;
		return;
	}
	case LANG_F_PRECISION:
	case LANG_F_PROVIDER:
		set_word(L, d, p, x0);
		return;
	case LANG_F_ROLE:
		set_role(L, d->name, p, x0, dir);
		return;
	default:
		break;
	}
	const struct ast_value *x = lang_deref(L, x0);
	if (!x)
		return;
	switch (d->type) {
	case LANG_F_INT: case LANG_F_LONG: case LANG_F_U64: case LANG_F_REAL: case LANG_F_FRACTION: case LANG_F_DURATION:
		if (x->kind != AST_NUM)
			break;
		set_number(L, d, p, x);
		return;
	case LANG_F_BOOL:
		if (x->kind != AST_BOOL)
			break;
		*(bool *)p = x->b;
		return;
	case LANG_F_STR:
		if (x->kind != AST_STR)
			break;
		free(*(char **)p);
		*(char **)p = x->str[0] ? xstrdup(x->str) : NULL;
		return;
	case LANG_F_SOURCE:
		if (x->kind != AST_STR)
			break;
		set_source(L, base, x, dir);
		return;
	case LANG_F_MODE:
		if (x->kind != AST_STR)
			break;
		if (pick(x->str, modes, 4) < 0) {
			char *hint = lang_hint(x->str, modes, 4);
			lang_err(&L->D, &x0->loc, "unknown compile mode '%s'%s", x->str, hint);
			free(hint);
			return;
		}
		free(*(char **)p);
		*(char **)p = strcmp(x->str, "default") ? xstrdup(x->str) : NULL;
		return;
	case LANG_F_OPTIONS:
		if (x->kind != AST_MAP)
			break;
		set_options(L, base, x);
		return;
	case LANG_F_ROOTS:
		if (x->kind == AST_STR) {
			add_root(L, d, base, x, dir);
			return;
		}
		if (x->kind != AST_LIST)
			break;
		for (size_t i = 0; i < x->nelems; i++) {
			const struct ast_value *e = lang_deref(L, x->elems[i].value);
			if (e && e->kind == AST_STR)
				add_root(L, d, base, e, dir);
			else if (e)
				lang_err(&L->D, &x->elems[i].value->loc, "'%s' wants %s, not %s", d->name,
					 type_phrase(d->type), lang_what(e, buf));
		}
		return;
	case LANG_F_STRLIST:
	case LANG_F_ENVNAMES: {
		/* a string, or a list of them, each added by the field's kind */
		void (*add)(struct loader *, const struct lang_field *, void *, const struct ast_value *) =
			d->type == LANG_F_STRLIST ? add_aten : add_envname;
		if (x->kind == AST_LIST) {
			for (size_t i = 0; i < x->nelems; i++)
				add(L, d, base, x->elems[i].value);
			return;
		}
		if (x->kind != AST_STR)
			break;
		add(L, d, base, x);
		return;
	}
	default:
		return;
	}
	lang_err(&L->D, &x0->loc, "'%s' wants %s, not %s", d->name, type_phrase(d->type), lang_what(x, buf));
}

void lang_llm_copy(struct kopt_llm *dst, const struct kopt_llm *src)
{
	*dst = *src;
	dst->provider = src->provider ? xstrdup(src->provider) : NULL;
	dst->model = src->model ? xstrdup(src->model) : NULL;
	dst->url = src->url ? xstrdup(src->url) : NULL;
	dst->key_env = src->key_env ? xstrdup(src->key_env) : NULL;
}

static int parse_llm(struct loader *L, const struct ast_value *x, struct kopt_llm *out, const char *dir)
{
	const struct ast_field *seen[KOPT_LLM_NFIELDS] = { NULL };
	struct kopt_llm l = KOPT_LLM_INIT;
	int before = L->D.nerrors;
	size_t npos = 0;
	for (size_t i = 0; i < x->nelems; i++) {
		const struct ast_field *f = &x->elems[i];
		if (f->name)
			continue;
		if (npos++ == 0) {
			seen[0] = f;
			set_field(L, &llm_fields[0], &l, f->value, dir);
		} else {
			lang_err(&L->D, &f->value->loc, "llm() takes one positional argument, the provider");
		}
	}
	lang_apply(L, "llm()", llm_fields, NLLM, &l, x->elems, x->nelems, seen, NULL, dir);
	if (L->D.nerrors == before) {
		if (!seen[0])
			lang_err(&L->D, &x->loc, "llm() needs a provider, as in llm(\"openai\", model = \"...\")");
		else if (!l.model)
			lang_err(&L->D, &x->loc, "llm() needs model = \"...\"");
	}
	if (L->D.nerrors != before) {
		lang_llm_release(&l);
		return -1;
	}
	if (!l.key_env)
		l.key_env = xstrdup(strcmp(l.provider, "anthropic") ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
	*out = l;
	return 0;
}

static void set_role(struct loader *L, const char *field, struct kopt_role_cfg *r, const struct ast_value *x,
		     const char *dir)
{
	char buf[64];
	if (x->kind == AST_NAME) {
		if (strcmp(x->str, "builtin") == 0) {
			lang_llm_release(&r->llm);
			r->backend = KOPT_BACKEND_BUILTIN;
			return;
		}
		static const char *const backends[] = { "builtin", "llm" };
		char *hint = lang_hint(x->str, backends, 2);
		lang_err(&L->D, &x->loc, "unknown backend '%s'%s; use builtin or llm(...)", x->str, hint);
		free(hint);
		return;
	}
	if (x->kind == AST_CALL && x->str && strcmp(x->str, "llm") == 0) {
		struct kopt_llm l;
		if (parse_llm(L, x, &l, dir) < 0)
			return;
		lang_llm_release(&r->llm);
		r->backend = KOPT_BACKEND_LLM;
		r->llm = l;
		return;
	}
	lang_err(&L->D, &x->loc, "'%s' wants builtin or llm(...), not %s", field, lang_what(x, buf));
}

static const char *const *field_names(const struct lang_field *tab, size_t n)
{
	const char **names = xcalloc(n, sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[i] = tab[i].name;
	return names;
}

/*
 * Sets the fields of base from items per tab: unknown and repeated fields
 * are errors. seen (ntab entries, zeroed by the caller) records where each
 * field was set. variants collects `variant` blocks; NULL refuses them.
 */
void lang_apply(struct loader *L, const char *in, const struct lang_field *tab, size_t ntab, void *base,
		  const struct ast_field *items, size_t n, const struct ast_field **seen, struct vlist *variants,
		  const char *dir)
{
	for (size_t i = 0; i < n; i++) {
		const struct ast_field *it = &items[i];
		if (it->kind == FIELD_VARIANT) {
			if (variants)
				do_variant(L, it, variants, dir);
			else
				lang_err(&L->D, &it->block->loc, "a variant block is not allowed in %s", in);
			continue;
		}
		if (it->kind == FIELD_SHAPE) {
			if (variants)
				lang_do_shape(L, it, variants);
			else
				lang_err(&L->D, &it->block->loc, "a shape block is not allowed in %s", in);
			continue;
		}
		if (!it->name)
			continue;
		size_t k;
		for (k = 0; k < ntab; k++)
			if (strcmp(tab[k].name, it->name) == 0)
				break;
		if (k == ntab) {
			const char *const *names = field_names(tab, ntab);
			char *hint = lang_hint(it->name, names, ntab);
			lang_err(&L->D, &it->name_loc, "unknown field '%s' in %s%s", it->name, in, hint);
			free(hint);
			free((void *)names);
			continue;
		}
		if (seen[k]) {
			lang_err(&L->D, &it->name_loc, "duplicate field '%s'", it->name);
			lang_note(&L->D, &seen[k]->name_loc, "'%s' was first set here", it->name);
			continue;
		}
		seen[k] = it;
		struct ast_value *v = lang_eval(L, it->value);
		if (!v)
			continue;
		set_field(L, &tab[k], base, v, dir);
		ast_value_free(v);
	}
}

static void do_variant(struct loader *L, const struct ast_field *it, struct vlist *vl, const char *dir)
{
	const struct ast_field *seen[KOPT_VARIANT_NFIELDS] = { NULL };
	struct kopt_variant v = KOPT_VARIANT_INIT;
	v.name = xstrdup(it->name);
	v.loc = it->block->loc;
	lang_apply(L, "a variant", lang_variant_fields.f, lang_variant_fields.n, &v, it->block->items, it->block->n, seen, NULL, dir);
	for (size_t i = 0; i < vl->n; i++)
		if (strcmp(vl->v[i].name, v.name) == 0) {
			lang_err(&L->D, &it->name_loc, "duplicate variant '%s'", v.name);
			lang_note(&L->D, &vl->v[i].loc, "'%s' was first defined here", v.name);
			lang_variant_release(&v);
			return;
		}
	vl->v = xgrow(vl->v, &vl->cap, vl->n + 1, sizeof *vl->v);
	vl->v[vl->n++] = v;
}

void lang_vlist_release(struct vlist *vl)
{
	for (size_t i = 0; i < vl->n; i++)
		lang_variant_release(&vl->v[i]);
	free(vl->v);
	for (size_t i = 0; i < vl->ns; i++)
		lang_shape_release(&vl->s[i]);
	free(vl->s);
	memset(vl, 0, sizeof *vl);
}
