/*
 * lang/eval.c: evaluating values as the loader meets them: strings with
 * ${VAR}, env(), variables, and the parts of lists, maps and calls.
 */
#include "load.h"

#include "../runtime/sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *lang_what(const struct ast_value *x, char buf[64])
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

const struct var *lang_find_var(const struct loader *L, const char *name)
{
	size_t *i = lang_smap_get(&L->varmap, name);
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
const struct ast_value *lang_deref(struct loader *L, const struct ast_value *x)
{
	if (x->kind != AST_NAME)
		return x;
	const struct var *v = lang_find_var(L, x->str);
	if (!v) {
		undefined_var(L, &x->loc, x->str);
		return NULL;
	}
	return v->bad ? NULL : v->value;
}

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
		args[i] = lang_eval(L, v->elems[i].value);
		if (args[i] && args[i]->kind != AST_STR) {
			char buf[64];
			lang_err(&L->D, &args[i]->loc, "env() wants strings, not %s", lang_what(args[i], buf));
			ok = false;
		}
		if (!args[i])
			ok = false;
	}
	struct ast_value *r = NULL;
	if (ok) {
		/* the name is checked once every file is read (lang_check_env) */
		L->envs = xgrow(L->envs, &L->envcap, L->nenvs + 1, sizeof *L->envs);
		const char *val = getenv(args[0]->str);
		L->envs[L->nenvs].name = xstrdup(args[0]->str);
		L->envs[L->nenvs].value = val ? xstrdup(val) : NULL;
		L->envs[L->nenvs++].loc = v->loc;
		r = ast_value_new(AST_STR, &v->loc);
		r->str = xstrdup(val ? val : args[1] ? args[1]->str : "");
	}
	ast_value_free(args[0]);
	ast_value_free(args[1]);
	return r;
}

/*
 * A value env() reads goes wherever the field it sets goes: step keys and
 * the action map, substitutions.json, reports, messages. So env() of a
 * variable that a key_env names, or whose name looks like a secret's
 * (runtime/sandbox.c's rule, the one that keeps it from workers), is an
 * error unless the defaults' public_env names it: that says the value is
 * meant to be kept. Checked once every file is read, since key_env and the
 * defaults may come after the env().
 */
void lang_check_env(struct loader *L)
{
	struct smap keys = { 0 }, public = { 0 };
	for (size_t i = 0; i < L->nagents; i++)
		for (int r = 0; r < KOPT_ROLE_COUNT; r++) {
			const struct kopt_role_cfg *c = &L->agents[i].roles[r];
			if (c->backend == KOPT_BACKEND_LLM && c->llm.key_env)
				lang_smap_put(&keys, c->llm.key_env, 0);
		}
	for (size_t i = 0; i < L->npublic_env; i++)
		lang_smap_put(&public, L->public_env[i], 0);
	for (size_t i = 0; i < L->nenvs; i++) {
		const struct envuse *e = &L->envs[i];
		if (lang_smap_get(&public, e->name))
			continue;
		const char *why = lang_smap_get(&keys, e->name) ? "a key_env names it"
				  : sandbox_env_secret(e->name, strlen(e->name)) ? "its name looks like one"
				  : NULL;
		if (why)
			lang_err(&L->D, &e->loc, "env(\"%s\") would keep a secret in the cache: %s (public_env in defaults allows it)", e->name, why);
	}
	lang_smap_release(&keys);
	lang_smap_release(&public);
}

char *lang_unset_env(const struct ast_value *v)
{
	if (!v || v->kind != AST_CALL || !v->str || strcmp(v->str, "env") != 0 || v->nelems < 1)
		return NULL;
	const struct ast_value *a = v->elems[0].value;
	if (!a || a->kind != AST_STR)
		return NULL;
	/* a plain string: one part of text (the lexer's form), or str */
	const char *name = a->nparts == 1 && !a->parts[0].is_var ? a->parts[0].text : a->nparts ? NULL : a->str;
	if (!name || getenv(name))
		return NULL;
	return xstrdup(name);
}

static const char *const functions[] = { "env", "glob", "llm" };

struct ast_value *lang_eval(struct loader *L, const struct ast_value *v)
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
			const struct var *var = lang_find_var(L, p->text);
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
					 p->text, lang_what(x, buf));
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
			struct ast_value *e = lang_eval(L, f->value);
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
