/*
 * lang/glob.c: the files of a models group: names, globs and lists of
 * them, each file one model named GROUP/STEM.
 */
#define _POSIX_C_SOURCE 200809L
#include "load.h"

#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	if (strcmp(stem, ".") == 0 || strcmp(stem, "..") == 0) {
		/* GROUP/.. would be the outputs' folder itself */
		lang_err(&L->D, at, "file '%s' has the stem '%s', which cannot name a model", path, stem);
		free(stem);
		return;
	}
	char *name = xasprintf("%s/%s", s->name, stem);
	free(stem);
	size_t *code = lang_smap_get(&L->names, name);
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
		lang_default_variant(&m, &s->loc);
	}
	m.shapes = vl->ns ? xcalloc(vl->ns, sizeof *m.shapes) : NULL;
	for (size_t i = 0; i < vl->ns; i++)
		lang_shape_copy(&m.shapes[i], &vl->s[i]);
	m.nshapes = vl->ns;
	lang_add_model(L, &m, pd, g->n == 0);
	g->n++;
}

/* the call of the statement's value at loc (the unevaluated glob(...) an
 * evaluated one came from: evaluation keeps locations) */
static const struct ast_value *call_at(const struct ast_value *v, const struct kopt_loc *loc)
{
	if (!v)
		return NULL;
	if (v->kind == AST_CALL && v->loc.line == loc->line && v->loc.col == loc->col)
		return v;
	for (size_t i = 0; v->kind == AST_LIST && i < v->nelems; i++) {
		const struct ast_value *r = call_at(v->elems[i].value, loc);
		if (r)
			return r;
	}
	return NULL;
}

/* name with glob(3)'s metacharacters (and its escape) escaped by a
 * backslash each, so that a pattern built on it matches it literally */
static char *escape_glob(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *c = name; *c; c++) {
		if (strchr("*?[]\\", *c))
			strbuf_addch(&sb, '\\');
		strbuf_addch(&sb, *c);
	}
	return strbuf_detach(&sb);
}

/* A glob that matched nothing: where its pattern came out empty in part,
 * why (issue 19: a pattern of ${KB} and a folder said nothing of the ${KB}
 * before it). The warning says which variable is empty and which variable
 * of the environment is not set; a note follows at the definition. */
static void warn_no_match(struct loader *L, const struct ast_stmt *s, const struct ast_value *x, const char *full)
{
	const struct ast_value *c = call_at(s->value, &x->loc);
	const struct ast_value *a = c && c->nelems == 1 ? c->elems[0].value : NULL;
	struct strbuf why = STRBUF_INIT;
	const struct var **empty = xcalloc(a && a->kind == AST_STR ? a->nparts + 1 : 1, sizeof *empty);
	size_t nempty = 0;
	char *env = lang_unset_env(a);
	if (env)
		strbuf_addf(&why, " (env(\"%s\") is empty: %s is not set)", env, env);
	for (size_t i = 0; !env && a && a->kind == AST_STR && i < a->nparts; i++) {
		const struct ast_part *p = &a->parts[i];
		const struct var *v = p->is_var ? lang_find_var(L, p->text) : NULL;
		if (!v || !v->value || v->value->kind != AST_STR || *v->value->str)
			continue;
		strbuf_addf(&why, "%s${%s} is empty", why.len ? ", " : " (", p->text);
		if (v->unset_env)
			strbuf_addf(&why, ": %s is not set", v->unset_env);
		empty[nempty++] = v;
	}
	if (nempty)
		strbuf_addch(&why, ')');
	lang_warn(&L->D, &x->loc, "glob '%s' matches no files%s", full, why.len ? why.buf : "");
	for (size_t i = 0; i < nempty; i++)
		lang_note(&L->D, &empty[i]->loc, "'%s' is defined here%s%s", empty[i]->name,
			  empty[i]->unset_env ? ", from the environment's " : "",
			  empty[i]->unset_env ? empty[i]->unset_env : "");
	free(empty);
	free(env);
	strbuf_release(&why);
}

void lang_add_pattern(struct loader *L, const struct ast_stmt *s, size_t gi, const struct ast_value *x,
			const struct pdecl *pd, const struct vlist *vl, const char *dir)
{
	char buf[64];
	if (x->kind == AST_STR) {
		struct stat st;
		char *path = lang_join(dir, x->str);
		if (lang_path_inside(L, &x->loc, "source", path) < 0)
			;
		else if (stat(path, &st) < 0)
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
		/* the spec's folder is a name, not a pattern: a folder such as
		 * "runs[2]" or "a*b" is matched as itself (its metacharacters
		 * escaped), and the matches begin with it as written */
		char *edir = escape_glob(dir);
		char *pattern = lang_join(edir, pat), *full = lang_join(dir, pat);
		free(edir);
		size_t plen = strlen(full) - strlen(pat);
		glob_t g;
		int r = glob(pattern, 0, NULL, &g);
		free(pattern);
		size_t added = 0;
		bool outside = false;
		if (r == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++) {
				struct stat st;
				const char *p = g.gl_pathv[i];
				if (stat(p, &st) < 0 || !S_ISREG(st.st_mode))
					continue;
				if (outside || (outside = lang_path_inside(L, &x->loc, "glob's match", p) < 0))
					continue; /* said once a glob */
				const char *src = p;
				if (plen && strncmp(p, full, plen) == 0)
					src = p + plen;
				add_member(L, s, gi, p, src, pd, vl, &x->loc);
				added++;
			}
		}
		if (r == 0 || r == GLOB_NOMATCH)
			globfree(&g);
		if (added == 0 && !outside)
			warn_no_match(L, s, x, full);
		free(full);
		return;
	}
	if (x->kind == AST_LIST) {
		for (size_t i = 0; i < x->nelems; i++) {
			const struct ast_value *e = x->elems[i].value;
			if (e->kind == AST_LIST)
				lang_err(&L->D, &e->loc, "a models declaration wants glob(\"PATTERN\"), a file name or a list of them, not %s", lang_what(e, buf));
			else
				lang_add_pattern(L, s, gi, e, pd, vl, dir);
		}
		return;
	}
	lang_err(&L->D, &x->loc, "a models declaration wants glob(\"PATTERN\"), a file name or a list of them, not %s", lang_what(x, buf));
}
