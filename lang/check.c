/*
 * lang/check.c: loading a spec. lang_load() reads the top file and every
 * file it includes, parses each (parser.y), and walks the statements in
 * order: variables and field values are evaluated as they are met (so a
 * variable must be defined above its first use), includes are read in place,
 * declarations are type- and range-checked into the spec's arrays. Then,
 * once every file is read, names are resolved (a declaration may refer to
 * one further down or in another file), groups and targets are expanded and
 * the checked kopt_spec (spec.h) is handed over.
 *
 * Every error is reported and checking goes on, so one run shows all of a
 * spec's mistakes. After a syntax error the names are not resolved: the
 * declaration that failed to parse would make every reference to it look
 * wrong. Names are looked up in hash tables, so loading is linear in the
 * size of the spec (and the number of files its globs match).
 *
 * Only reads: stat(), glob() and reading files; nothing is written.
 */
#define _POSIX_C_SOURCE 200809L
#include "ast.h"
#include "lang.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- a string-keyed hash table (keys borrowed, values are indices) ---- */

struct smap {
	const char **keys;
	size_t *vals;
	size_t cap, n;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static size_t *smap_get(const struct smap *m, const char *k)
{
	if (!m->cap)
		return NULL;
	size_t i = (size_t)hash_str(k) & (m->cap - 1);
	while (m->keys[i]) {
		if (strcmp(m->keys[i], k) == 0)
			return &m->vals[i];
		i = (i + 1) & (m->cap - 1);
	}
	return NULL;
}

static void smap_put(struct smap *m, const char *k, size_t v)
{
	if ((m->n + 1) * 10 > m->cap * 7) {
		struct smap g;
		g.cap = m->cap ? m->cap * 2 : 16;
		g.n = 0;
		g.keys = xcalloc(g.cap, sizeof *g.keys);
		g.vals = xcalloc(g.cap, sizeof *g.vals);
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i])
				smap_put(&g, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	size_t i = (size_t)hash_str(k) & (m->cap - 1);
	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = k;
	m->vals[i] = v;
	m->n++;
}

static void smap_release(struct smap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

/* ---- the loader's state ---- */

struct ref {
	char *name;          /* NULL when not given */
	struct kopt_loc loc;
};

/* the fields of a model, kernel, helion or models declaration */
struct pdecl {
	struct ref device, agents, gates;
	char *source, *path;
	char *remote_cache;  /* defaults only */
	bool has_source;
};

/* what a model still has to resolve, parallel to loader.models */
struct pmodel {
	struct ref device, agents, gates;
	bool report;         /* the first model of its declaration reports for all of it */
};

struct pgroup {
	size_t first, n;     /* its members: models[first .. first + n) */
};

struct ptarget {
	struct ref *items;   /* the names listed */
	size_t n;
	int state;           /* 0 new, 1 being expanded, 2 done */
};

struct var {
	char *name;
	struct kopt_loc loc;
	struct ast_value *value; /* evaluated */
	bool bad;                /* its definition had an error: uses fail quietly */
};

struct vlist {
	struct kopt_variant *v;
	size_t n, cap;
};

enum { N_MODEL, N_GROUP, N_TARGET };

struct loader {
	struct lang_diag D;
	char **files;            /* every file read; kopt_loc.file points here */
	size_t nfiles, filescap;
	char **keys;             /* file identities, owned (smap keys borrow them) */
	size_t nkeys, keyscap;
	struct smap seen;        /* identities of files already read */
	const char **stack;      /* identities of the files being read, outermost first */
	const char **stackpath;
	size_t depth, stackcap;

	struct var *vars;
	size_t nvars, varscap;
	struct smap varmap;

	struct kopt_device *devices;
	size_t ndevices, devcap;
	struct smap devmap;
	struct kopt_agents *agents;
	size_t nagents, agcap;
	struct smap agmap;
	struct kopt_gates *gates;
	size_t ngates, gatecap;
	struct smap gatemap;

	struct kopt_model *models;
	struct pmodel *pm;
	size_t nmodels, modelcap, pmcap;
	char **groupnames;
	struct kopt_loc *grouplocs;
	struct pgroup *groups;
	size_t ngroups, groupcap, gnamecap, gloccap;
	struct kopt_target *targets;
	struct ptarget *pt;
	size_t ntargets, targetcap, ptcap;
	struct smap names;       /* models, groups, targets: index << 2 | N_* */

	struct {
		struct ref device, agents, gates;
	} defaults;
	bool have_defaults;
	struct kopt_loc defaults_loc;
	char *remote_cache;      /* the defaults' remote_cache */
	struct ref default_target;

	bool syntax_errors;
	const char *topfile;
};

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static char *join(const char *dir, const char *rel)
{
	size_t n = strlen(dir);
	if (rel[0] == '/' || !strcmp(dir, ".") || n == 0)
		return xstrdup(rel);
	if (dir[n - 1] == '/')
		return xasprintf("%s%s", dir, rel);
	return xasprintf("%s/%s", dir, rel);
}

static const char *what(const struct ast_value *x, char buf[64])
{
	switch (x->kind) {
	case AST_STR: return "a string";
	case AST_NUM:
		return x->unit == UNIT_NONE ? "a number" : lang_unit_name(x->unit);
	case AST_BOOL: return "a boolean";
	case AST_NAME: return "a name";
	case AST_LIST: return "a list";
	case AST_MAP: return "a map";
	default:
		snprintf(buf, 64, "a call to %.40s()", x->str ? x->str : "?");
		return buf;
	}
}

static const struct var *find_var(const struct loader *L, const char *name)
{
	size_t *i = smap_get(&L->varmap, name);
	return i ? &L->vars[*i] : NULL;
}

static void undefined_var(struct loader *L, const struct kopt_loc *loc, const char *name)
{
	const char **cands = xcalloc(L->nvars, sizeof *cands);
	for (size_t i = 0; i < L->nvars; i++)
		cands[i] = L->vars[i].name;
	char *hint = lang_hint(name, cands, L->nvars);
	lang_err(&L->D, loc, "undefined variable '%s'%s", name, hint);
	free(hint);
	free(cands);
}

/* a bare word where a value is wanted names a variable */
static const struct ast_value *deref(struct loader *L, const struct ast_value *x)
{
	if (x->kind != AST_NAME)
		return x;
	const struct var *v = find_var(L, x->str);
	if (!v) {
		undefined_var(L, &x->loc, x->str);
		return NULL;
	}
	return v->bad ? NULL : v->value;
}

/* ---- evaluation: strings, env(), and the parts of lists, maps, calls ---- */

static struct ast_value *eval(struct loader *L, const struct ast_value *v);

static struct ast_value *eval_env(struct loader *L, const struct ast_value *v)
{
	struct ast_value *args[2] = { NULL, NULL };
	bool ok = v->nelems >= 1 && v->nelems <= 2;
	for (size_t i = 0; i < v->nelems; i++)
		if (v->elems[i].name)
			ok = false;
	if (!ok) {
		lang_err(&L->D, &v->loc, "env() takes a variable name and an optional default string");
		return NULL;
	}
	for (size_t i = 0; i < v->nelems; i++) {
		args[i] = eval(L, v->elems[i].value);
		if (args[i] && args[i]->kind != AST_STR) {
			char buf[64];
			lang_err(&L->D, &args[i]->loc, "env() wants strings, not %s", what(args[i], buf));
			ok = false;
		}
		if (!args[i])
			ok = false;
	}
	struct ast_value *r = NULL;
	if (ok) {
		const char *val = getenv(args[0]->str);
		r = ast_value_new(AST_STR, &v->loc);
		r->str = xstrdup(val ? val : args[1] ? args[1]->str : "");
	}
	ast_value_free(args[0]);
	ast_value_free(args[1]);
	return r;
}

static const char *const functions[] = { "env", "glob", "llm" };

static struct ast_value *eval(struct loader *L, const struct ast_value *v)
{
	switch (v->kind) {
	case AST_STR: {
		if (!v->parts)
			return ast_value_copy(v);
		struct strbuf sb = STRBUF_INIT;
		bool ok = true;
		for (size_t i = 0; i < v->nparts; i++) {
			const struct ast_part *p = &v->parts[i];
			if (!p->is_var) {
				strbuf_addstr(&sb, p->text);
				continue;
			}
			const struct var *var = find_var(L, p->text);
			if (!var || var->bad) {
				if (!var)
					undefined_var(L, &p->loc, p->text);
				ok = false;
				continue;
			}
			const struct ast_value *x = var->value;
			if (x->kind == AST_STR)
				strbuf_addstr(&sb, x->str);
			else if (x->kind == AST_NUM)
				lang_fmt_num(&sb, x->num);
			else if (x->kind == AST_BOOL)
				strbuf_addstr(&sb, x->b ? "true" : "false");
			else {
				char buf[64];
				lang_err(&L->D, &p->loc, "variable '%s' holds %s, which cannot go into a string",
					 p->text, what(x, buf));
				ok = false;
			}
		}
		if (!ok) {
			strbuf_release(&sb);
			return NULL;
		}
		struct ast_value *r = ast_value_new(AST_STR, &v->loc);
		r->str = strbuf_detach(&sb);
		return r;
	}
	case AST_NUM:
	case AST_BOOL:
	case AST_NAME:
		return ast_value_copy(v);
	case AST_CALL:
		if (v->str && strcmp(v->str, "env") == 0)
			return eval_env(L, v);
		if (!v->str || (strcmp(v->str, "glob") && strcmp(v->str, "llm"))) {
			char *hint = lang_hint(v->str ? v->str : "", functions, 3);
			lang_err(&L->D, &v->loc, "unknown function '%s'%s", v->str ? v->str : "", hint);
			free(hint);
			return NULL;
		}
		/* fall through */
	case AST_LIST:
	case AST_MAP: {
		struct ast_value *r = ast_value_new(v->kind, &v->loc);
		bool ok = true;
		r->str = v->str ? xstrdup(v->str) : NULL;
		for (size_t i = 0; i < v->nelems; i++) {
			const struct ast_field *f = &v->elems[i];
			struct ast_value *e = eval(L, f->value);
			if (!e) {
				ok = false;
				continue;
			}
			ast_elem_add(r, f->name ? xstrdup(f->name) : NULL, &f->name_loc, e);
		}
		if (!ok) {
			ast_value_free(r);
			return NULL;
		}
		return r;
	}
	}
	return NULL;
}

/* ---- fields ---- */

enum ftype {
	F_INT, F_LONG, F_U64, F_REAL, F_FRACTION, F_DURATION, F_BOOL, F_STR,
	F_PRECISION, F_ROLE, F_PROVIDER, F_REF_DEVICE, F_REF_AGENTS, F_REF_GATES,
	F_SOURCE, F_MODE, F_OPTIONS, F_STRLIST
};

struct fdesc {
	const char *name;
	enum ftype type;
	size_t off;
	double lo, hi;  /* range, inclusive unless lo_open */
	bool lo_open;
};

#define NOLIMIT -INFINITY, INFINITY, false

static const char *type_phrase(enum ftype t)
{
	switch (t) {
	case F_INT: case F_LONG: case F_U64: return "a whole number";
	case F_REAL: return "a number";
	case F_FRACTION: return "a number or a percentage";
	case F_DURATION: return "a duration such as 30s or 10m";
	case F_BOOL: return "true or false";
	case F_OPTIONS: return "a map { \"key\" = value ... }";
	case F_STRLIST: return "a list of strings";
	default: return "a string";
	}
}

static void set_role(struct loader *L, const char *field, struct kopt_role_cfg *r, const struct ast_value *x,
		     const char *dir);

static void apply(struct loader *L, const char *in, const struct fdesc *tab, size_t ntab, void *base,
		  const struct ast_field *items, size_t n, const struct ast_field **seen, struct vlist *variants,
		  const char *dir);

static bool in_range(const struct fdesc *d, double x)
{
	return (d->lo_open ? x > d->lo : x >= d->lo) && x <= d->hi;
}

static void range_error(struct loader *L, const struct fdesc *d, const struct ast_value *x)
{
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;
	if (isfinite(d->lo)) {
		strbuf_addstr(&want, d->lo_open ? "> " : ">= ");
		lang_fmt_num(&want, d->lo);
	}
	if (isfinite(d->hi)) {
		strbuf_addstr(&want, want.len ? " and <= " : "<= ");
		lang_fmt_num(&want, d->hi);
	}
	lang_fmt_num(&got, x->num);
	if (d->type == F_DURATION)
		strbuf_addch(&got, 's');
	lang_err(&L->D, &x->loc, "'%s' must be %s, not %s", d->name, want.buf, got.buf);
	strbuf_release(&want);
	strbuf_release(&got);
}

static int set_number(struct loader *L, const struct fdesc *d, void *p, const struct ast_value *x)
{
	char buf[64];
	bool unit_ok = x->unit == UNIT_NONE || (d->type == F_FRACTION && x->unit == UNIT_PERCENT) ||
		       (d->type == F_DURATION && x->unit == UNIT_DURATION);
	if (!unit_ok) {
		lang_err(&L->D, &x->loc, "'%s' wants %s, not %s", d->name, type_phrase(d->type), what(x, buf));
		return -1;
	}
	bool whole = d->type == F_INT || d->type == F_LONG || d->type == F_U64;
	if (whole && x->num != floor(x->num)) {
		struct strbuf got = STRBUF_INIT;
		lang_fmt_num(&got, x->num);
		lang_err(&L->D, &x->loc, "'%s' wants a whole number, not %s", d->name, got.buf);
		strbuf_release(&got);
		return -1;
	}
	if (d->type == F_U64 && x->is_int && x->num >= 0) {
		*(uint64_t *)p = x->u;
		return 0;
	}
	if (!in_range(d, x->num)) {
		range_error(L, d, x);
		return -1;
	}
	switch (d->type) {
	case F_INT: *(int *)p = (int)x->num; break;
	case F_LONG: *(long *)p = (long)x->num; break;
	case F_U64: *(uint64_t *)p = (uint64_t)x->num; break;
	default: *(double *)p = x->num; break;
	}
	return 0;
}

static const char *const precisions[] = { "strict", "tf32", "loose" };
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

static int to_json(struct loader *L, struct strbuf *sb, const struct ast_value *x0)
{
	const struct ast_value *x = deref(L, x0);
	char buf[64];
	if (!x)
		return -1;
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
			if (to_json(L, sb, x->elems[i].value) < 0)
				r = -1;
		}
		strbuf_addch(sb, x->kind == AST_LIST ? ']' : '}');
		return r;
	}
	default:
		lang_err(&L->D, &x0->loc, "an option value is a string, number, boolean, list or map, not %s", what(x, buf));
		return -1;
	}
}

static void set_options(struct loader *L, struct kopt_variant *v, const struct ast_value *x)
{
	struct smap keys = { 0 };
	for (size_t i = 0; i < x->nelems; i++) {
		const struct ast_field *f = &x->elems[i];
		size_t *first = smap_get(&keys, f->name);
		if (first) {
			lang_err(&L->D, &f->name_loc, "duplicate option '%s'", f->name);
			lang_note(&L->D, &x->elems[*first].name_loc, "'%s' was first set here", f->name);
			continue;
		}
		smap_put(&keys, f->name, i);
		struct strbuf sb = STRBUF_INIT;
		if (to_json(L, &sb, f->value) < 0) {
			strbuf_release(&sb);
			continue;
		}
		v->options = xrealloc(v->options, (v->noptions + 1) * sizeof *v->options);
		v->options[v->noptions].key = xstrdup(f->name);
		v->options[v->noptions].json = strbuf_detach(&sb);
		v->noptions++;
	}
	smap_release(&keys);
}

static void add_aten(struct loader *L, const struct fdesc *d, struct kopt_variant *v, const struct ast_value *x0)
{
	const struct ast_value *x = deref(L, x0);
	char buf[64];
	if (!x)
		return;
	if (x->kind != AST_STR) {
		lang_err(&L->D, &x0->loc, "'%s' wants %s, not %s", d->name, type_phrase(d->type), what(x, buf));
		return;
	}
	if (strncmp(x->str, "aten.", 5) != 0 || !x->str[5]) {
		lang_err(&L->D, &x0->loc, "'%s' is not an ATen operator name such as aten.avg_pool2d", x->str);
		return;
	}
	v->aten_fallback = xrealloc(v->aten_fallback, (v->naten_fallback + 1) * sizeof(char *));
	v->aten_fallback[v->naten_fallback++] = xstrdup(x->str);
}

static void set_source(struct loader *L, struct pdecl *pd, const struct ast_value *x, const char *dir)
{
	struct stat st;
	pd->has_source = true;
	free(pd->source);
	free(pd->path);
	pd->source = xstrdup(x->str);
	pd->path = join(dir, x->str);
	if (stat(pd->path, &st) < 0)
		lang_err(&L->D, &x->loc, "cannot read source '%s': %s", pd->path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		lang_err(&L->D, &x->loc, "source '%s' is not a regular file", pd->path);
}

static void set_word(struct loader *L, const struct fdesc *d, void *p, const struct ast_value *x)
{
	char buf[64];
	if (x->kind != AST_NAME && x->kind != AST_STR) {
		lang_err(&L->D, &x->loc, "'%s' wants a word, not %s", d->name, what(x, buf));
		return;
	}
	const char *const *words = d->type == F_PRECISION ? precisions : providers;
	size_t n = d->type == F_PRECISION ? 3 : 2;
	int i = pick(x->str, words, n);
	if (i < 0) {
		char *hint = lang_hint(x->str, words, n);
		if (d->type == F_PRECISION)
			lang_err(&L->D, &x->loc, "unknown precision '%s'%s; use strict, tf32 or loose", x->str, hint);
		else
			lang_err(&L->D, &x->loc, "unknown llm provider '%s'%s; use openai or anthropic", x->str, hint);
		free(hint);
		return;
	}
	if (d->type == F_PRECISION) {
		*(enum kopt_precision *)p = (enum kopt_precision)i;
	} else {
		free(*(char **)p);
		*(char **)p = xstrdup(words[i]);
	}
}

static void set_field(struct loader *L, const struct fdesc *d, void *base, const struct ast_value *x0,
		      const char *dir)
{
	void *p = (char *)base + d->off;
	char buf[64];
	switch (d->type) {
	case F_REF_DEVICE:
	case F_REF_AGENTS:
	case F_REF_GATES: {
		struct ref *r = p;
		if (x0->kind != AST_NAME) {
			static const char *const of[] = { "a device", "an agents set", "a gates set" };
			lang_err(&L->D, &x0->loc, "'%s' wants the name of %s, not %s", d->name,
				 of[d->type - F_REF_DEVICE], what(x0, buf));
			return;
		}
		free(r->name);
		r->name = xstrdup(x0->str);
		r->loc = x0->loc;
		return;
	}
	case F_PRECISION:
	case F_PROVIDER:
		set_word(L, d, p, x0);
		return;
	case F_ROLE:
		set_role(L, d->name, p, x0, dir);
		return;
	default:
		break;
	}
	const struct ast_value *x = deref(L, x0);
	if (!x)
		return;
	switch (d->type) {
	case F_INT: case F_LONG: case F_U64: case F_REAL: case F_FRACTION: case F_DURATION:
		if (x->kind != AST_NUM)
			break;
		set_number(L, d, p, x);
		return;
	case F_BOOL:
		if (x->kind != AST_BOOL)
			break;
		*(bool *)p = x->b;
		return;
	case F_STR:
		if (x->kind != AST_STR)
			break;
		free(*(char **)p);
		*(char **)p = x->str[0] ? xstrdup(x->str) : NULL;
		return;
	case F_SOURCE:
		if (x->kind != AST_STR)
			break;
		set_source(L, p, x, dir);
		return;
	case F_MODE:
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
	case F_OPTIONS:
		if (x->kind != AST_MAP)
			break;
		set_options(L, base, x);
		return;
	case F_STRLIST:
		if (x->kind == AST_LIST) {
			for (size_t i = 0; i < x->nelems; i++)
				add_aten(L, d, base, x->elems[i].value);
			return;
		}
		if (x->kind != AST_STR)
			break;
		add_aten(L, d, base, x);
		return;
	default:
		return;
	}
	lang_err(&L->D, &x0->loc, "'%s' wants %s, not %s", d->name, type_phrase(d->type), what(x, buf));
}

/* ---- llm(...) and roles ---- */

static const struct fdesc llm_fields[] = {
	{ "provider", F_PROVIDER, offsetof(struct kopt_llm, provider), NOLIMIT },
	{ "model", F_STR, offsetof(struct kopt_llm, model), NOLIMIT },
	{ "url", F_STR, offsetof(struct kopt_llm, url), NOLIMIT },
	{ "key_env", F_STR, offsetof(struct kopt_llm, key_env), NOLIMIT },
	{ "temperature", F_REAL, offsetof(struct kopt_llm, temperature), 0, 2, false },
	{ "max_tokens", F_LONG, offsetof(struct kopt_llm, max_tokens), 1, 1e15, false },
};
#define NLLM (sizeof llm_fields / sizeof llm_fields[0])

static void llm_copy(struct kopt_llm *dst, const struct kopt_llm *src)
{
	*dst = *src;
	dst->provider = src->provider ? xstrdup(src->provider) : NULL;
	dst->model = src->model ? xstrdup(src->model) : NULL;
	dst->url = src->url ? xstrdup(src->url) : NULL;
	dst->key_env = src->key_env ? xstrdup(src->key_env) : NULL;
}

static int parse_llm(struct loader *L, const struct ast_value *x, struct kopt_llm *out, const char *dir)
{
	const struct ast_field *seen[NLLM] = { NULL };
	struct kopt_llm l = { NULL, NULL, NULL, NULL, 0.2, 8192 };
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
	apply(L, "llm()", llm_fields, NLLM, &l, x->elems, x->nelems, seen, NULL, dir);
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
	lang_err(&L->D, &x->loc, "'%s' wants builtin or llm(...), not %s", field, what(x, buf));
}

/* ---- blocks ---- */

static const char *const *field_names(const struct fdesc *tab, size_t n)
{
	const char **names = xcalloc(n, sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[i] = tab[i].name;
	return names;
}

static void do_variant(struct loader *L, const struct ast_field *it, struct vlist *vl, const char *dir);

/*
 * Sets the fields of base from items per tab: unknown and repeated fields
 * are errors. seen (ntab entries, zeroed by the caller) records where each
 * field was set. variants collects `variant` blocks; NULL refuses them.
 */
static void apply(struct loader *L, const char *in, const struct fdesc *tab, size_t ntab, void *base,
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
		struct ast_value *v = eval(L, it->value);
		if (!v)
			continue;
		set_field(L, &tab[k], base, v, dir);
		ast_value_free(v);
	}
}

static const struct fdesc variant_fields[] = {
	{ "mode", F_MODE, offsetof(struct kopt_variant, mode), NOLIMIT },
	{ "options", F_OPTIONS, 0, NOLIMIT },
	{ "aten_fallback", F_STRLIST, 0, NOLIMIT },
	{ "cudnn_benchmark", F_BOOL, offsetof(struct kopt_variant, cudnn_benchmark), NOLIMIT },
};

static void do_variant(struct loader *L, const struct ast_field *it, struct vlist *vl, const char *dir)
{
	const struct ast_field *seen[4] = { NULL };
	struct kopt_variant v;
	memset(&v, 0, sizeof v);
	v.name = xstrdup(it->name);
	v.loc = it->block->loc;
	apply(L, "a variant", variant_fields, 4, &v, it->block->items, it->block->n, seen, NULL, dir);
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

static void vlist_release(struct vlist *vl)
{
	for (size_t i = 0; i < vl->n; i++)
		lang_variant_release(&vl->v[i]);
	free(vl->v);
	memset(vl, 0, sizeof *vl);
}

/* ---- declarations ---- */

static const struct fdesc device_fields[] = {
	{ "gpu", F_STR, offsetof(struct kopt_device, gpu), NOLIMIT },
	{ "gpus", F_INT, offsetof(struct kopt_device, gpus), 1, 65536, false },
	{ "timeout", F_DURATION, offsetof(struct kopt_device, timeout_s), 0, INFINITY, true },
	{ "launcher", F_STR, offsetof(struct kopt_device, launcher), NOLIMIT },
};

struct pagents {
	struct kopt_agents a;
	struct kopt_role_cfg backend;
};

#define AG(f) offsetof(struct pagents, a.f)
static const struct fdesc agents_fields[] = {
	{ "analyst", F_ROLE, AG(roles[KOPT_ROLE_ANALYST]), NOLIMIT },
	{ "planner", F_ROLE, AG(roles[KOPT_ROLE_PLANNER]), NOLIMIT },
	{ "coder", F_ROLE, AG(roles[KOPT_ROLE_CODER]), NOLIMIT },
	{ "debugger", F_ROLE, AG(roles[KOPT_ROLE_DEBUGGER]), NOLIMIT },
	{ "tuner", F_ROLE, AG(roles[KOPT_ROLE_TUNER]), NOLIMIT },
	{ "budget", F_INT, AG(budget), 0, INT_MAX, false },
	{ "hot", F_FRACTION, AG(hot), 0, 1, true },
	{ "seed", F_U64, AG(seed), 0, 9007199254740992.0, false },
	{ "max_kernels", F_INT, AG(max_kernels), 0, INT_MAX, false },
	{ "auto_variants", F_BOOL, AG(auto_variants), NOLIMIT },
	{ "llm_calls", F_INT, AG(llm_calls), 0, INT_MAX, false },
	{ "tokens", F_LONG, AG(tokens), 0, 1e15, false },
	{ "wall", F_DURATION, AG(wall_s), 0, INFINITY, true },
	{ "backend", F_ROLE, offsetof(struct pagents, backend), NOLIMIT },
};
#define NAGENTS (sizeof agents_fields / sizeof agents_fields[0])

static const struct fdesc gates_fields[] = {
	{ "seeds", F_INT, offsetof(struct kopt_gates, seeds), 1, 1000000, false },
	{ "atol", F_REAL, offsetof(struct kopt_gates, atol), 0, INFINITY, false },
	{ "rtol", F_REAL, offsetof(struct kopt_gates, rtol), 0, INFINITY, false },
	{ "atol_half", F_REAL, offsetof(struct kopt_gates, atol_half), 0, INFINITY, false },
	{ "rtol_half", F_REAL, offsetof(struct kopt_gates, rtol_half), 0, INFINITY, false },
	{ "fp64_fallback", F_BOOL, offsetof(struct kopt_gates, fp64_fallback), NOLIMIT },
	{ "gamma", F_REAL, offsetof(struct kopt_gates, gamma), 1, INFINITY, false },
	{ "repeats", F_INT, offsetof(struct kopt_gates, repeats), 1, 1000000, false },
	{ "precision", F_PRECISION, offsetof(struct kopt_gates, precision), NOLIMIT },
};

static const struct fdesc defaults_fields[] = {
	{ "device", F_REF_DEVICE, offsetof(struct pdecl, device), NOLIMIT },
	{ "agents", F_REF_AGENTS, offsetof(struct pdecl, agents), NOLIMIT },
	{ "gates", F_REF_GATES, offsetof(struct pdecl, gates), NOLIMIT },
	{ "remote_cache", F_STR, offsetof(struct pdecl, remote_cache), NOLIMIT },
};

/* model, kernel, helion: source first; a models group takes the last three */
static const struct fdesc model_fields[] = {
	{ "source", F_SOURCE, 0, NOLIMIT },
	{ "device", F_REF_DEVICE, offsetof(struct pdecl, device), NOLIMIT },
	{ "agents", F_REF_AGENTS, offsetof(struct pdecl, agents), NOLIMIT },
	{ "gates", F_REF_GATES, offsetof(struct pdecl, gates), NOLIMIT },
};

static void ref_release(struct ref *r)
{
	free(r->name);
	r->name = NULL;
}

static void pdecl_release(struct pdecl *pd)
{
	ref_release(&pd->device);
	ref_release(&pd->agents);
	ref_release(&pd->gates);
	free(pd->source);
	free(pd->path);
	free(pd->remote_cache);
}

static void ref_copy(struct ref *dst, const struct ref *src)
{
	dst->name = src->name ? xstrdup(src->name) : NULL;
	dst->loc = src->loc;
}

static const struct ast_field *block_items(const struct ast_block *b, size_t *n)
{
	*n = b ? b->n : 0;
	return b ? b->items : NULL;
}

static bool check_dup(struct loader *L, const char *kind, const struct ast_stmt *s, const struct kopt_loc *first)
{
	if (!first)
		return false;
	lang_err(&L->D, &s->name_loc, "duplicate %s '%s'", kind, s->name);
	lang_note(&L->D, first, "'%s' was first defined here", s->name);
	return true;
}

static const struct kopt_loc *name_loc(const struct loader *L, size_t code)
{
	size_t i = code >> 2;
	switch (code & 3) {
	case N_MODEL: return &L->models[i].loc;
	case N_GROUP: return &L->grouplocs[i];
	default: return &L->targets[i].loc;
	}
}

static bool dup_name(struct loader *L, const struct ast_stmt *s)
{
	size_t *code = smap_get(&L->names, s->name);
	return code ? check_dup(L, "name", s, name_loc(L, *code)) : false;
}

static void do_device(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[4] = { NULL };
	struct kopt_device d = { NULL, NULL, 1, NULL, 600, s->loc };
	size_t n, *first = smap_get(&L->devmap, s->name);
	const struct ast_field *items = block_items(s->block, &n);
	bool dup = first && check_dup(L, "device", s, &L->devices[*first].loc);
	apply(L, "a device", device_fields, 4, &d, items, n, seen, NULL, dir);
	if (dup) {
		lang_device_release(&d);
		return;
	}
	d.name = xstrdup(s->name);
	L->devices = xgrow(L->devices, &L->devcap, L->ndevices + 1, sizeof *L->devices);
	L->devices[L->ndevices] = d;
	smap_put(&L->devmap, d.name, L->ndevices++);
}

static void agents_init(struct kopt_agents *a, const struct kopt_loc *loc)
{
	memset(a, 0, sizeof *a);
	a->budget = 16;
	a->hot = 0.05;
	a->llm_calls = 32;
	a->tokens = 200000;
	a->wall_s = 1800;
	a->max_kernels = 10;
	a->auto_variants = true;
	a->loc = *loc;
}

static void do_agents(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[NAGENTS] = { NULL };
	struct pagents pa;
	size_t n, *first = smap_get(&L->agmap, s->name);
	const struct ast_field *items = block_items(s->block, &n);
	bool dup = first && check_dup(L, "agents set", s, &L->agents[*first].loc);
	agents_init(&pa.a, &s->loc);
	memset(&pa.backend, 0, sizeof pa.backend);
	apply(L, "an agents set", agents_fields, NAGENTS, &pa, items, n, seen, NULL, dir);
	for (int r = 0; r < KOPT_ROLE_COUNT; r++)
		if (!seen[r]) {
			pa.a.roles[r].backend = pa.backend.backend;
			if (pa.backend.backend == KOPT_BACKEND_LLM)
				llm_copy(&pa.a.roles[r].llm, &pa.backend.llm);
		}
	lang_llm_release(&pa.backend.llm);
	if (dup) {
		lang_agents_release(&pa.a);
		return;
	}
	pa.a.name = xstrdup(s->name);
	L->agents = xgrow(L->agents, &L->agcap, L->nagents + 1, sizeof *L->agents);
	L->agents[L->nagents] = pa.a;
	smap_put(&L->agmap, pa.a.name, L->nagents++);
}

static void gates_init(struct kopt_gates *g, const struct kopt_loc *loc)
{
	memset(g, 0, sizeof *g);
	g->seeds = 5;
	g->atol = g->rtol = 1e-4;
	g->atol_half = g->rtol_half = 1e-2;
	g->fp64_fallback = true;
	g->gamma = 1.03;
	g->repeats = 10;
	g->precision = KOPT_PRECISION_STRICT;
	g->loc = *loc;
}

static void do_gates(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[9] = { NULL };
	struct kopt_gates g;
	size_t n, *first = smap_get(&L->gatemap, s->name);
	const struct ast_field *items = block_items(s->block, &n);
	bool dup = first && check_dup(L, "gates set", s, &L->gates[*first].loc);
	gates_init(&g, &s->loc);
	apply(L, "a gates set", gates_fields, 9, &g, items, n, seen, NULL, dir);
	if (dup)
		return;
	g.name = xstrdup(s->name);
	L->gates = xgrow(L->gates, &L->gatecap, L->ngates + 1, sizeof *L->gates);
	L->gates[L->ngates] = g;
	smap_put(&L->gatemap, g.name, L->ngates++);
}

static void do_defaults(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[4] = { NULL };
	struct pdecl pd;
	size_t n;
	const struct ast_field *items = block_items(s->block, &n);
	memset(&pd, 0, sizeof pd);
	if (L->have_defaults) {
		lang_err(&L->D, &s->loc, "duplicate defaults block");
		lang_note(&L->D, &L->defaults_loc, "the first defaults block is here");
	}
	apply(L, "the defaults block", defaults_fields, 4, &pd, items, n, seen, NULL, dir);
	const char *bad = pd.remote_cache ? kopt_url_problem(pd.remote_cache) : NULL;
	if (bad)
		lang_err(&L->D, &seen[3]->value->loc, "remote_cache: %s", bad);
	if (L->have_defaults) {
		pdecl_release(&pd);
		return;
	}
	L->have_defaults = true;
	L->defaults_loc = s->loc;
	L->defaults.device = pd.device;
	L->defaults.agents = pd.agents;
	L->defaults.gates = pd.gates;
	L->remote_cache = pd.remote_cache;
}

static size_t add_model(struct loader *L, struct kopt_model *m, const struct pdecl *pd, bool report)
{
	L->models = xgrow(L->models, &L->modelcap, L->nmodels + 1, sizeof *L->models);
	L->pm = xgrow(L->pm, &L->pmcap, L->nmodels + 1, sizeof *L->pm);
	L->models[L->nmodels] = *m;
	struct pmodel *p = &L->pm[L->nmodels];
	ref_copy(&p->device, &pd->device);
	ref_copy(&p->agents, &pd->agents);
	ref_copy(&p->gates, &pd->gates);
	p->report = report;
	smap_put(&L->names, L->models[L->nmodels].name, L->nmodels << 2 | N_MODEL);
	return L->nmodels++;
}

static void default_variant(struct kopt_model *m, const struct kopt_loc *loc)
{
	m->variants = xcalloc(1, sizeof *m->variants);
	m->variants[0].name = xstrdup("default");
	m->variants[0].loc = *loc;
	m->nvariants = 1;
}

static void do_model(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[4] = { NULL };
	static const char *const kinds[] = { "a model", "a kernel", "a helion kernel" };
	static const char *const kw[] = { "model", "kernel", "helion" };
	enum kopt_model_kind kind = s->kind == STMT_MODEL ? KOPT_MODEL_TORCH :
				    s->kind == STMT_KERNEL ? KOPT_MODEL_TRITON : KOPT_MODEL_HELION;
	struct pdecl pd;
	struct vlist vl = { 0 };
	size_t n;
	const struct ast_field *items = block_items(s->block, &n);
	memset(&pd, 0, sizeof pd);
	bool dup = dup_name(L, s);
	apply(L, kinds[kind], model_fields, 4, &pd, items, n, seen, kind == KOPT_MODEL_TORCH ? &vl : NULL, dir);
	if (!seen[0])
		lang_err(&L->D, &s->name_loc, "%s '%s' has no source (add source = \"FILE\")", kw[kind], s->name);
	if (dup || !pd.has_source) {
		vlist_release(&vl);
		pdecl_release(&pd);
		return;
	}
	struct kopt_model m;
	memset(&m, 0, sizeof m);
	m.name = xstrdup(s->name);
	m.kind = kind;
	m.source = pd.source;
	m.path = pd.path;
	pd.source = pd.path = NULL;
	m.loc = s->loc;
	if (vl.n) {
		m.variants = vl.v;
		m.nvariants = vl.n;
	} else {
		free(vl.v);
		default_variant(&m, &s->loc);
	}
	add_model(L, &m, &pd, true);
	pdecl_release(&pd);
}

static char *stem_of(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	return dot && dot != base ? xstrndup(base, (size_t)(dot - base)) : xstrdup(base);
}

/* adds one member file to group gi; source is as the spec should show it */
static void add_member(struct loader *L, const struct ast_stmt *s, size_t gi, const char *path,
		       const char *source, const struct pdecl *pd, const struct vlist *vl,
		       const struct kopt_loc *at)
{
	struct pgroup *g = &L->groups[gi];
	char *stem = stem_of(path);
	char *name = xasprintf("%s/%s", s->name, stem);
	free(stem);
	size_t *code = smap_get(&L->names, name);
	if (code) {
		/* the same file twice (through two patterns) is taken once */
		const struct kopt_model *o = &L->models[*code >> 2];
		struct stat a, b;
		bool same = strcmp(o->path, path) == 0 ||
			    (stat(o->path, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino);
		if (!same)
			lang_err(&L->D, at, "two files make the model '%s': '%s' and '%s'", name, o->path, path);
		free(name);
		return;
	}
	struct kopt_model m;
	memset(&m, 0, sizeof m);
	m.name = name;
	m.kind = KOPT_MODEL_TORCH;
	m.source = xstrdup(source);
	m.path = xstrdup(path);
	m.group = xstrdup(s->name);
	m.loc = s->loc;
	if (vl->n) {
		m.variants = xcalloc(vl->n, sizeof *m.variants);
		for (size_t i = 0; i < vl->n; i++)
			lang_variant_copy(&m.variants[i], &vl->v[i]);
		m.nvariants = vl->n;
	} else {
		default_variant(&m, &s->loc);
	}
	add_model(L, &m, pd, g->n == 0);
	g->n++;
}

static void add_pattern(struct loader *L, const struct ast_stmt *s, size_t gi, const struct ast_value *x,
			const struct pdecl *pd, const struct vlist *vl, const char *dir)
{
	char buf[64];
	if (x->kind == AST_STR) {
		struct stat st;
		char *path = join(dir, x->str);
		if (stat(path, &st) < 0)
			lang_err(&L->D, &x->loc, "cannot read source '%s': %s", path, strerror(errno));
		else if (!S_ISREG(st.st_mode))
			lang_err(&L->D, &x->loc, "source '%s' is not a regular file", path);
		else
			add_member(L, s, gi, path, x->str, pd, vl, &x->loc);
		free(path);
		return;
	}
	if (x->kind == AST_CALL && strcmp(x->str, "glob") == 0) {
		if (x->nelems != 1 || x->elems[0].name || x->elems[0].value->kind != AST_STR) {
			lang_err(&L->D, &x->loc, "glob() takes one pattern string");
			return;
		}
		const char *pat = x->elems[0].value->str;
		char *full = join(dir, pat);
		size_t plen = strlen(full) - strlen(pat);
		glob_t g;
		int r = glob(full, 0, NULL, &g);
		size_t added = 0;
		if (r == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++) {
				struct stat st;
				const char *p = g.gl_pathv[i];
				if (stat(p, &st) < 0 || !S_ISREG(st.st_mode))
					continue;
				const char *src = p;
				if (plen && strncmp(p, full, plen) == 0)
					src = p + plen;
				add_member(L, s, gi, p, src, pd, vl, &x->loc);
				added++;
			}
		}
		if (r == 0 || r == GLOB_NOMATCH)
			globfree(&g);
		if (added == 0)
			lang_warn(&L->D, &x->loc, "glob '%s' matches no files", full);
		free(full);
		return;
	}
	if (x->kind == AST_LIST) {
		for (size_t i = 0; i < x->nelems; i++) {
			const struct ast_value *e = x->elems[i].value;
			if (e->kind == AST_LIST)
				lang_err(&L->D, &e->loc, "a models declaration wants glob(\"PATTERN\"), a file name or a list of them, not %s", what(e, buf));
			else
				add_pattern(L, s, gi, e, pd, vl, dir);
		}
		return;
	}
	lang_err(&L->D, &x->loc, "a models declaration wants glob(\"PATTERN\"), a file name or a list of them, not %s", what(x, buf));
}

static void do_models(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	const struct ast_field *seen[3] = { NULL };
	struct pdecl pd;
	struct vlist vl = { 0 };
	size_t n;
	const struct ast_field *items = block_items(s->block, &n);
	memset(&pd, 0, sizeof pd);
	bool dup = dup_name(L, s);
	apply(L, "a models group", model_fields + 1, 3, &pd, items, n, seen, &vl, dir);
	struct ast_value *v = eval(L, s->value);
	if (v && !dup) {
		L->groups = xgrow(L->groups, &L->groupcap, L->ngroups + 1, sizeof *L->groups);
		L->groupnames = xgrow(L->groupnames, &L->gnamecap, L->ngroups + 1, sizeof *L->groupnames);
		L->grouplocs = xgrow(L->grouplocs, &L->gloccap, L->ngroups + 1, sizeof *L->grouplocs);
		size_t gi = L->ngroups++;
		L->groupnames[gi] = xstrdup(s->name);
		L->grouplocs[gi] = s->loc;
		L->groups[gi].first = L->nmodels;
		L->groups[gi].n = 0;
		smap_put(&L->names, L->groupnames[gi], gi << 2 | N_GROUP);
		add_pattern(L, s, gi, v, &pd, &vl, dir);
	}
	ast_value_free(v);
	vlist_release(&vl);
	pdecl_release(&pd);
}

static void do_target(struct loader *L, const struct ast_stmt *s)
{
	char buf[64];
	bool dup = dup_name(L, s);
	struct ast_value *v = eval(L, s->value);
	if (!v)
		return;
	struct ptarget pt = { NULL, 0, 0 };
	const struct ast_field one = { FIELD_SET, NULL, s->value->loc, v, NULL };
	const struct ast_field *elems = v->kind == AST_LIST ? v->elems : &one;
	size_t n = v->kind == AST_LIST ? v->nelems : 1;
	pt.items = xcalloc(n, sizeof *pt.items);
	for (size_t i = 0; i < n; i++) {
		const struct ast_value *e = elems[i].value;
		if (e->kind != AST_NAME && e->kind != AST_STR) {
			lang_err(&L->D, &e->loc, "a target lists models, groups and targets by name, not %s", what(e, buf));
			continue;
		}
		pt.items[pt.n].name = xstrdup(e->str);
		pt.items[pt.n++].loc = e->loc;
	}
	ast_value_free(v);
	if (dup) {
		for (size_t i = 0; i < pt.n; i++)
			ref_release(&pt.items[i]);
		free(pt.items);
		return;
	}
	L->targets = xgrow(L->targets, &L->targetcap, L->ntargets + 1, sizeof *L->targets);
	L->pt = xgrow(L->pt, &L->ptcap, L->ntargets + 1, sizeof *L->pt);
	struct kopt_target *t = &L->targets[L->ntargets];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(s->name);
	t->loc = s->loc;
	L->pt[L->ntargets] = pt;
	smap_put(&L->names, t->name, L->ntargets << 2 | N_TARGET);
	L->ntargets++;
}

static void do_var(struct loader *L, const struct ast_stmt *s)
{
	char buf[64];
	struct ast_value *v = s->had_error ? NULL : eval(L, s->value);
	if (v && v->kind == AST_NAME) {
		const struct ast_value *x = deref(L, v);
		ast_value_free(v);
		v = x ? ast_value_copy(x) : NULL;
	}
	if (v && v->kind == AST_CALL) {
		lang_err(&L->D, &v->loc, "a variable cannot hold %s", what(v, buf));
		ast_value_free(v);
		v = NULL;
	}
	const struct var *first = find_var(L, s->name);
	if (first) {
		lang_err(&L->D, &s->name_loc, "duplicate variable '%s'", s->name);
		lang_note(&L->D, &first->loc, "'%s' was first defined here", s->name);
		ast_value_free(v);
		return;
	}
	/* one whose value had an error is defined all the same, so that its
	 * uses do not look undefined; they fail quietly */
	L->vars = xgrow(L->vars, &L->varscap, L->nvars + 1, sizeof *L->vars);
	L->vars[L->nvars].name = xstrdup(s->name);
	L->vars[L->nvars].loc = s->name_loc;
	L->vars[L->nvars].value = v;
	L->vars[L->nvars].bad = v == NULL;
	smap_put(&L->varmap, L->vars[L->nvars].name, L->nvars);
	L->nvars++;
}

static void do_default(struct loader *L, const struct ast_stmt *s)
{
	if (L->default_target.name) {
		lang_err(&L->D, &s->loc, "duplicate default target");
		lang_note(&L->D, &L->default_target.loc, "the first default is here");
		return;
	}
	L->default_target.name = xstrdup(s->name);
	L->default_target.loc = s->name_loc;
}

static void load_text(struct loader *L, const char *path, const char *dir, const char *src, size_t len,
		      const char *key);

static char *file_key(const char *path, const struct stat *st)
{
	(void)path;
	return xasprintf("%ju:%ju", (uintmax_t)st->st_dev, (uintmax_t)st->st_ino);
}

static void do_include(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	struct ast_value *v = eval(L, s->value);
	struct stat st;
	if (!v)
		return;
	char *path = join(dir, v->str);
	if (stat(path, &st) < 0) {
		lang_err(&L->D, &v->loc, "cannot read include '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		lang_err(&L->D, &v->loc, "include '%s' is not a regular file", path);
		goto out;
	}
	char *key = file_key(path, &st);
	for (size_t i = 0; i < L->depth; i++) {
		if (strcmp(L->stack[i], key) != 0)
			continue;
		struct strbuf chain = STRBUF_INIT;
		for (size_t k = i; k < L->depth; k++)
			strbuf_addf(&chain, "%s -> ", L->stackpath[k]);
		strbuf_addstr(&chain, path);
		lang_err(&L->D, &v->loc, "include cycle: %s", chain.buf);
		strbuf_release(&chain);
		free(key);
		goto out;
	}
	if (smap_get(&L->seen, key)) { /* read once, like #pragma once */
		free(key);
		goto out;
	}
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		lang_err(&L->D, &v->loc, "cannot read include '%s': %s", path, strerror(errno));
		free(key);
		strbuf_release(&sb);
		goto out;
	}
	char *idir = dir_of(path);
	load_text(L, path, idir, sb.buf, sb.len, key);
	free(idir);
	strbuf_release(&sb);
out:
	free(path);
	ast_value_free(v);
}

static void do_stmt(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	/* a declaration that did not parse cleanly would only give more
	 * errors about the same mistake; a variable is still defined (see
	 * do_var), so that its uses do not look undefined */
	if (s->had_error && s->kind != STMT_VAR)
		return;
	switch (s->kind) {
	case STMT_VAR: do_var(L, s); break;
	case STMT_INCLUDE: do_include(L, s, dir); break;
	case STMT_DEVICE: do_device(L, s, dir); break;
	case STMT_AGENTS: do_agents(L, s, dir); break;
	case STMT_GATES: do_gates(L, s, dir); break;
	case STMT_DEFAULTS: do_defaults(L, s, dir); break;
	case STMT_MODEL: case STMT_KERNEL: case STMT_HELION: do_model(L, s, dir); break;
	case STMT_MODELS: do_models(L, s, dir); break;
	case STMT_TARGET: do_target(L, s); break;
	case STMT_DEFAULT: do_default(L, s); break;
	}
}

/* reads one file's text: key (owned, taken) identifies it for include cycles */
static void load_text(struct loader *L, const char *path, const char *dir, const char *src, size_t len,
		      const char *key)
{
	L->files = xgrow(L->files, &L->filescap, L->nfiles + 1, sizeof *L->files);
	char *file = L->files[L->nfiles++] = xstrdup(path);
	L->keys = xgrow(L->keys, &L->keyscap, L->nkeys + 1, sizeof *L->keys);
	L->keys[L->nkeys++] = (char *)key;
	smap_put(&L->seen, key, 0);
	L->stack = xgrow(L->stack, &L->stackcap, L->depth + 1, sizeof *L->stack);
	L->stackpath = xrealloc(L->stackpath, L->stackcap * sizeof *L->stackpath);
	L->stack[L->depth] = key;
	L->stackpath[L->depth++] = file;

	struct lang_parse P;
	memset(&P, 0, sizeof P);
	P.D = &L->D;
	P.file = file;
	if (lang_parse(&P, src, len) < 0)
		L->syntax_errors = true;
	for (size_t i = 0; i < P.nstmts; i++)
		do_stmt(L, &P.stmts[i], dir);
	lang_parse_release(&P);
	L->depth--;
}

/* ---- resolution ---- */

enum rkind { R_DEVICE, R_AGENTS, R_GATES };

static const char *ref_cand(const struct loader *L, enum rkind k, size_t i)
{
	return k == R_DEVICE ? L->devices[i].name : k == R_AGENTS ? L->agents[i].name : L->gates[i].name;
}

static size_t ref_count(const struct loader *L, enum rkind k)
{
	return k == R_DEVICE ? L->ndevices : k == R_AGENTS ? L->nagents : L->ngates;
}

static const struct smap *ref_map(const struct loader *L, enum rkind k)
{
	return k == R_DEVICE ? &L->devmap : k == R_AGENTS ? &L->agmap : &L->gatemap;
}

static const char *const rk_names[] = { "device", "agents set", "gates set" };
static const char *const rk_fields[] = { "device", "agents", "gates" };

/* the index named by r, or (size_t)-1 after reporting (when report is set) */
static size_t resolve(struct loader *L, enum rkind k, const struct ref *r, bool report)
{
	size_t *i = smap_get(ref_map(L, k), r->name);
	if (i)
		return *i;
	if (report) {
		size_t n = ref_count(L, k);
		const char **cands = xcalloc(n, sizeof *cands);
		for (size_t j = 0; j < n; j++)
			cands[j] = ref_cand(L, k, j);
		char *hint = lang_hint(r->name, cands, n);
		lang_err(&L->D, &r->loc, "unknown %s '%s'%s", rk_names[k], r->name, hint);
		free(hint);
		free(cands);
	}
	return (size_t)-1;
}

static const struct kopt_loc implicit_loc = { NULL, 0, 0, 0, 0 };

/* adds an entity named "default" of kind k when models need one and none is declared */
static void add_implicit(struct loader *L, enum rkind k)
{
	struct kopt_loc loc = implicit_loc;
	loc.file = L->topfile;
	if (k == R_DEVICE) {
		struct kopt_device d = { xstrdup("default"), NULL, 1, NULL, 600, loc };
		L->devices = xgrow(L->devices, &L->devcap, 1, sizeof *L->devices);
		L->devices[L->ndevices++] = d;
		smap_put(&L->devmap, L->devices[0].name, 0);
	} else if (k == R_AGENTS) {
		L->agents = xgrow(L->agents, &L->agcap, 1, sizeof *L->agents);
		agents_init(&L->agents[0], &loc);
		L->agents[0].name = xstrdup("default");
		L->nagents = 1;
		smap_put(&L->agmap, L->agents[0].name, 0);
	} else {
		L->gates = xgrow(L->gates, &L->gatecap, 1, sizeof *L->gates);
		gates_init(&L->gates[0], &loc);
		L->gates[0].name = xstrdup("default");
		L->ngates = 1;
		smap_put(&L->gatemap, L->gates[0].name, 0);
	}
}

static void resolve_models(struct loader *L)
{
	struct ref *defs[3] = { &L->defaults.device, &L->defaults.agents, &L->defaults.gates };
	bool def_ok[3];
	for (int k = 0; k < 3; k++) {
		bool need = false;
		for (size_t i = 0; i < L->nmodels && !need; i++) {
			struct pmodel *p = &L->pm[i];
			const struct ref *own = k == 0 ? &p->device : k == 1 ? &p->agents : &p->gates;
			need = !own->name && !defs[k]->name;
		}
		if (need && ref_count(L, (enum rkind)k) == 0)
			add_implicit(L, (enum rkind)k);
		def_ok[k] = defs[k]->name && resolve(L, (enum rkind)k, defs[k], true) != (size_t)-1;
	}
	for (size_t i = 0; i < L->nmodels; i++) {
		struct kopt_model *m = &L->models[i];
		struct pmodel *p = &L->pm[i];
		const struct ref *own[3] = { &p->device, &p->agents, &p->gates };
		size_t idx[3];
		for (int k = 0; k < 3; k++) {
			idx[k] = (size_t)-1;
			if (own[k]->name)
				idx[k] = resolve(L, (enum rkind)k, own[k], p->report);
			else if (defs[k]->name)
				idx[k] = def_ok[k] ? resolve(L, (enum rkind)k, defs[k], false) : (size_t)-1;
			else if (ref_count(L, (enum rkind)k) == 1)
				idx[k] = 0;
			else if (p->report)
				lang_err(&L->D, &m->loc, "'%s' does not say which %s to use: %zu are declared (set %s = NAME, or add a defaults block)",
					 m->group ? m->group : m->name, rk_names[k], ref_count(L, (enum rkind)k), rk_fields[k]);
		}
		m->device = idx[0] != (size_t)-1 ? &L->devices[idx[0]] : NULL;
		m->agents = idx[1] != (size_t)-1 ? &L->agents[idx[1]] : NULL;
		m->gates = idx[2] != (size_t)-1 ? &L->gates[idx[2]] : NULL;
	}
}

struct expander {
	size_t *mark;        /* per model: 1 + the target that last took it */
	size_t *stack;       /* targets being expanded, outermost first */
	size_t *next;        /* per stack entry: the next item to look at */
	size_t *pos;         /* per target: its place on the stack while state is 1 */
	size_t depth;
};

static void name_hint(struct loader *L, const struct ref *r, const char *kind)
{
	size_t n = L->nmodels + L->ngroups + L->ntargets, k = 0;
	const char **cands = xcalloc(n, sizeof *cands);
	for (size_t i = 0; i < L->nmodels; i++)
		cands[k++] = L->models[i].name;
	for (size_t i = 0; i < L->ngroups; i++)
		cands[k++] = L->groupnames[i];
	for (size_t i = 0; i < L->ntargets; i++)
		cands[k++] = L->targets[i].name;
	char *hint = lang_hint(r->name, cands, n);
	lang_err(&L->D, &r->loc, "unknown %s '%s'%s", kind, r->name, hint);
	free(hint);
	free(cands);
}

static void take(struct expander *E, struct kopt_target *t, size_t ti, struct kopt_model *m, size_t mi,
		 size_t *cap)
{
	if (E->mark[mi] == ti + 1)
		return;
	E->mark[mi] = ti + 1;
	t->models = xgrow(t->models, cap, t->nmodels + 1, sizeof *t->models);
	t->models[t->nmodels++] = m;
}

/* all sub-targets of ti are expanded: collect its models */
static void collect(struct loader *L, struct expander *E, size_t ti)
{
	struct ptarget *pt = &L->pt[ti];
	struct kopt_target *t = &L->targets[ti];
	size_t cap = 0;
	for (size_t i = 0; i < pt->n; i++) {
		size_t *code = smap_get(&L->names, pt->items[i].name);
		if (!code) {
			name_hint(L, &pt->items[i], "model, group or target");
			continue;
		}
		size_t idx = *code >> 2;
		switch (*code & 3) {
		case N_MODEL:
			take(E, t, ti, &L->models[idx], idx, &cap);
			break;
		case N_GROUP:
			for (size_t k = 0; k < L->groups[idx].n; k++)
				take(E, t, ti, &L->models[L->groups[idx].first + k], L->groups[idx].first + k, &cap);
			break;
		default: {
			const struct kopt_target *sub = &L->targets[idx];
			if (L->pt[idx].state != 2)
				break; /* on a cycle, reported */
			for (size_t k = 0; k < sub->nmodels; k++)
				take(E, t, ti, sub->models[k], (size_t)(sub->models[k] - L->models), &cap);
		}
		}
	}
}

static void cycle_error(struct loader *L, struct expander *E, size_t sub, const struct ref *at)
{
	struct strbuf chain = STRBUF_INIT;
	size_t from = E->pos[sub], n = E->depth - from;
	for (size_t k = from; k < E->depth; k++) {
		if (n > 8 && k == from + 4) { /* a long cycle: its ends say enough */
			strbuf_addstr(&chain, "... -> ");
			k = E->depth - 4;
		}
		strbuf_addf(&chain, "%s -> ", L->targets[E->stack[k]].name);
	}
	strbuf_addstr(&chain, L->targets[sub].name);
	lang_err(&L->D, &at->loc, "target cycle: %s", chain.buf);
	strbuf_release(&chain);
}

/* Depth first, without recursion (target chains may be long): a target's
 * models are collected once all the targets it names are done, so the mark
 * stamps of one target never interleave with another's. */
static void expand(struct loader *L, struct expander *E, size_t root)
{
	if (L->pt[root].state == 2)
		return;
	E->depth = 0;
	E->stack[E->depth] = root;
	E->next[E->depth] = 0;
	E->pos[root] = E->depth++;
	L->pt[root].state = 1;
	while (E->depth) {
		size_t ti = E->stack[E->depth - 1];
		struct ptarget *pt = &L->pt[ti];
		size_t i = E->next[E->depth - 1]++;
		if (i < pt->n) {
			size_t *code = smap_get(&L->names, pt->items[i].name);
			if (!code || (*code & 3) != N_TARGET)
				continue;
			size_t sub = *code >> 2;
			if (L->pt[sub].state == 1) {
				cycle_error(L, E, sub, &pt->items[i]);
				continue;
			}
			if (L->pt[sub].state == 0) {
				E->stack[E->depth] = sub;
				E->next[E->depth] = 0;
				E->pos[sub] = E->depth++;
				L->pt[sub].state = 1;
			}
			continue;
		}
		collect(L, E, ti);
		pt->state = 2;
		E->depth--;
	}
}

static void resolve_targets(struct loader *L)
{
	struct expander E;
	size_t n = L->ntargets ? L->ntargets : 1;
	E.mark = xcalloc(L->nmodels ? L->nmodels : 1, sizeof *E.mark);
	E.stack = xcalloc(n, sizeof *E.stack);
	E.next = xcalloc(n, sizeof *E.next);
	E.pos = xcalloc(n, sizeof *E.pos);
	E.depth = 0;
	for (size_t i = 0; i < L->ntargets; i++)
		expand(L, &E, i);
	free(E.mark);
	free(E.stack);
	free(E.next);
	free(E.pos);
}

static struct kopt_target *resolve_default(struct loader *L)
{
	struct ref *r = &L->default_target;
	if (!r->name) {
		size_t *code = smap_get(&L->names, "all");
		return code && (*code & 3) == N_TARGET ? &L->targets[*code >> 2] : NULL;
	}
	size_t *code = smap_get(&L->names, r->name);
	if (!code) {
		name_hint(L, r, "target");
		return NULL;
	}
	if ((*code & 3) != N_TARGET) {
		lang_err(&L->D, &r->loc, "'%s' is a %s, not a target (default names a target)", r->name,
			 (*code & 3) == N_MODEL ? "model" : "models group");
		return NULL;
	}
	return &L->targets[*code >> 2];
}

/* ---- the entry points ---- */

static void loader_release(struct loader *L)
{
	for (size_t i = 0; i < L->nvars; i++) {
		free(L->vars[i].name);
		ast_value_free(L->vars[i].value);
	}
	free(L->vars);
	smap_release(&L->varmap);
	for (size_t i = 0; i < L->ndevices; i++)
		lang_device_release(&L->devices[i]);
	free(L->devices);
	for (size_t i = 0; i < L->nagents; i++)
		lang_agents_release(&L->agents[i]);
	free(L->agents);
	for (size_t i = 0; i < L->ngates; i++)
		free(L->gates[i].name);
	free(L->gates);
	for (size_t i = 0; i < L->nmodels; i++)
		lang_model_release(&L->models[i]);
	free(L->models);
	for (size_t i = 0; i < L->ntargets; i++)
		lang_target_release(&L->targets[i]);
	free(L->targets);
	for (size_t i = 0; i < L->nfiles; i++)
		free(L->files[i]);
	free(L->files);
	smap_release(&L->devmap);
	smap_release(&L->agmap);
	smap_release(&L->gatemap);
	smap_release(&L->names);
	smap_release(&L->seen);
	free(L->remote_cache);
	/* the rest is always released */
}

static void loader_release_side(struct loader *L)
{
	for (size_t i = 0; i < L->nmodels; i++) {
		ref_release(&L->pm[i].device);
		ref_release(&L->pm[i].agents);
		ref_release(&L->pm[i].gates);
	}
	free(L->pm);
	for (size_t i = 0; i < L->ntargets; i++) {
		for (size_t k = 0; k < L->pt[i].n; k++)
			ref_release(&L->pt[i].items[k]);
		free(L->pt[i].items);
	}
	free(L->pt);
	for (size_t i = 0; i < L->ngroups; i++)
		free(L->groupnames[i]);
	free(L->groupnames);
	free(L->grouplocs);
	free(L->groups);
	for (size_t i = 0; i < L->nkeys; i++)
		free(L->keys[i]);
	free(L->keys);
	free(L->stack);
	free(L->stackpath);
	ref_release(&L->defaults.device);
	ref_release(&L->defaults.agents);
	ref_release(&L->defaults.gates);
	ref_release(&L->default_target);
}

static int load(const char *name, const char *dir, const char *src, size_t len, char *key,
		kopt_diag_fn *report, void *ctx, kopt_spec **out)
{
	struct loader L;
	memset(&L, 0, sizeof L);
	L.D.report = report;
	L.D.ctx = ctx;
	L.topfile = name;
	load_text(&L, name, dir, src, len, key);
	L.topfile = L.files[0];
	struct kopt_target *def = NULL;
	if (!L.syntax_errors) {
		resolve_models(&L);
		resolve_targets(&L);
		def = resolve_default(&L);
	}
	loader_release_side(&L);
	if (L.D.nerrors) {
		loader_release(&L);
		return -1;
	}
	kopt_spec *s = xcalloc(1, sizeof *s);
	s->file = xstrdup(name);
	s->dir = xstrdup(dir);
	s->devices = L.devices;
	s->ndevices = L.ndevices;
	s->agents = L.agents;
	s->nagents = L.nagents;
	s->gates = L.gates;
	s->ngates = L.ngates;
	s->models = L.models;
	s->nmodels = L.nmodels;
	s->targets = L.targets;
	s->ntargets = L.ntargets;
	s->default_target = def;
	s->remote_cache = L.remote_cache;
	L.remote_cache = NULL;
	s->files = L.files;
	s->nfiles = L.nfiles;
	L.devices = NULL;
	L.agents = NULL;
	L.gates = NULL;
	L.models = NULL;
	L.targets = NULL;
	L.files = NULL;
	L.ndevices = L.nagents = L.ngates = L.nmodels = L.ntargets = L.nfiles = 0;
	loader_release(&L);
	*out = s;
	return 0;
}

int lang_load(const char *path, kopt_diag_fn *report, void *ctx, kopt_spec **out)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	*out = NULL;
	const char *why = NULL;
	if (stat(path, &st) < 0 || (S_ISREG(st.st_mode) && strbuf_read_file(&sb, path) < 0))
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	if (why) {
		struct lang_diag D = { report, ctx, 0 };
		struct kopt_loc loc = { path, 0, 0, 0, 0 };
		lang_err(&D, &loc, "cannot read spec: %s", why);
		strbuf_release(&sb);
		return -1;
	}
	char *dir = dir_of(path);
	int r = load(path, dir, sb.buf, sb.len, file_key(path, &st), report, ctx, out);
	free(dir);
	strbuf_release(&sb);
	return r;
}

int lang_load_buffer(const char *name, const char *dir, const char *src, size_t len,
		     kopt_diag_fn *report, void *ctx, kopt_spec **out)
{
	*out = NULL;
	char *d = dir ? xstrdup(dir) : dir_of(name);
	int r = load(name, d, src, len, xasprintf("buffer:%s", name), report, ctx, out);
	free(d);
	return r;
}
