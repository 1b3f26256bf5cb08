/* lang/ast.c: syntax tree nodes and the module's diagnostics helpers; see ast.h */
#include "ast.h"

#include <stdlib.h>
#include <string.h>

static void vreport(struct lang_diag *D, enum kopt_severity sev, const struct kopt_loc *loc,
		    const char *fmt, va_list ap)
{
	struct kopt_diag d;
	char *msg = xvasprintf(fmt, ap);
	d.severity = sev;
	if (loc)
		d.loc = *loc;
	else
		memset(&d.loc, 0, sizeof d.loc);
	d.message = msg;
	if (sev == KOPT_ERROR)
		D->nerrors++;
	if (D->report)
		D->report(D->ctx, &d);
	free(msg);
}

void lang_err(struct lang_diag *D, const struct kopt_loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(D, KOPT_ERROR, loc, fmt, ap);
	va_end(ap);
}

void lang_warn(struct lang_diag *D, const struct kopt_loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(D, KOPT_WARNING, loc, fmt, ap);
	va_end(ap);
}

void lang_note(struct lang_diag *D, const struct kopt_loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(D, KOPT_NOTE, loc, fmt, ap);
	va_end(ap);
}

char *lang_hint(const char *name, const char *const *cands, size_t n)
{
	const char *s = kopt_suggest(name, cands, n);
	if (!s || strcmp(s, name) == 0)
		return xstrdup("");
	return xasprintf(" (did you mean '%s'?)", s);
}

struct ast_value *ast_value_new(enum ast_kind kind, const struct kopt_loc *loc)
{
	struct ast_value *v = xcalloc(1, sizeof *v);
	v->kind = kind;
	if (loc)
		v->loc = *loc;
	return v;
}

void ast_field_release(struct ast_field *f)
{
	free(f->name);
	ast_value_free(f->value);
	ast_block_free(f->block);
	f->name = NULL;
	f->value = NULL;
	f->block = NULL;
}

void ast_value_free(struct ast_value *v)
{
	if (!v)
		return;
	free(v->str);
	for (size_t i = 0; i < v->nparts; i++)
		free(v->parts[i].text);
	free(v->parts);
	for (size_t i = 0; i < v->nelems; i++)
		ast_field_release(&v->elems[i]);
	free(v->elems);
	free(v);
}

struct ast_value *ast_value_copy(const struct ast_value *v)
{
	if (!v)
		return NULL;
	struct ast_value *c = xmalloc(sizeof *c);
	*c = *v;
	c->str = v->str ? xstrdup(v->str) : NULL;
	c->parts = NULL;
	c->nparts = c->partcap = 0;
	for (size_t i = 0; i < v->nparts; i++)
		ast_part_add(c, xstrdup(v->parts[i].text), v->parts[i].is_var, &v->parts[i].loc);
	c->elems = NULL;
	c->nelems = c->elemcap = 0;
	for (size_t i = 0; i < v->nelems; i++) {
		const struct ast_field *f = &v->elems[i];
		ast_elem_add(c, f->name ? xstrdup(f->name) : NULL, &f->name_loc, ast_value_copy(f->value));
	}
	return c;
}

void ast_part_add(struct ast_value *v, char *text, bool is_var, const struct kopt_loc *loc)
{
	v->parts = xgrow(v->parts, &v->partcap, v->nparts + 1, sizeof *v->parts);
	struct ast_part *p = &v->parts[v->nparts++];
	p->text = text;
	p->is_var = is_var;
	p->loc = *loc;
}

void ast_elem_add(struct ast_value *v, char *name, const struct kopt_loc *name_loc, struct ast_value *val)
{
	v->elems = xgrow(v->elems, &v->elemcap, v->nelems + 1, sizeof *v->elems);
	struct ast_field *f = &v->elems[v->nelems++];
	memset(f, 0, sizeof *f);
	f->kind = FIELD_SET;
	f->name = name;
	if (name_loc)
		f->name_loc = *name_loc;
	else if (val)
		f->name_loc = val->loc;
	f->value = val;
}

struct ast_block *ast_block_new(const struct kopt_loc *loc)
{
	struct ast_block *b = xcalloc(1, sizeof *b);
	if (loc)
		b->loc = *loc;
	return b;
}

void ast_block_add(struct ast_block *b, struct ast_field *f)
{
	b->items = xgrow(b->items, &b->cap, b->n + 1, sizeof *b->items);
	b->items[b->n++] = *f;
	memset(f, 0, sizeof *f);
}

void ast_block_free(struct ast_block *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		ast_field_release(&b->items[i]);
	free(b->items);
	free(b);
}

void ast_stmt_release(struct ast_stmt *s)
{
	free(s->name);
	ast_value_free(s->value);
	ast_block_free(s->block);
	memset(s, 0, sizeof *s);
}

void lang_parse_release(struct lang_parse *P)
{
	for (size_t i = 0; i < P->nstmts; i++)
		ast_stmt_release(&P->stmts[i]);
	free(P->stmts);
	P->stmts = NULL;
	P->nstmts = P->cap = 0;
}

const char *lang_unit_name(enum ast_unit u)
{
	switch (u) {
	case UNIT_DURATION: return "a duration";
	case UNIT_SIZE: return "a size";
	case UNIT_PERCENT: return "a percentage";
	default: return "a plain number";
	}
}
