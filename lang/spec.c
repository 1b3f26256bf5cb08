/*
 * lang/spec.c: the checked spec's lifecycle and lookups, and how numbers and
 * strings are written (lang_fmt_num, lang_fmt_str: the dump, diagnostics).
 */
#include "ast.h"
#include "lang.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void lang_llm_release(struct kopt_llm *l)
{
	free(l->provider);
	free(l->model);
	free(l->url);
	free(l->key_env);
	memset(l, 0, sizeof *l);
}

void lang_variant_release(struct kopt_variant *v)
{
	free(v->name);
	free(v->mode);
	for (size_t i = 0; i < v->noptions; i++) {
		free(v->options[i].key);
		free(v->options[i].json);
	}
	free(v->options);
	for (size_t i = 0; i < v->naten_fallback; i++)
		free(v->aten_fallback[i]);
	free(v->aten_fallback);
	memset(v, 0, sizeof *v);
}

void lang_variant_copy(struct kopt_variant *dst, const struct kopt_variant *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->mode = src->mode ? xstrdup(src->mode) : NULL;
	dst->options = src->noptions ? xcalloc(src->noptions, sizeof *dst->options) : NULL;
	for (size_t i = 0; i < src->noptions; i++) {
		dst->options[i].key = xstrdup(src->options[i].key);
		dst->options[i].json = xstrdup(src->options[i].json);
	}
	dst->aten_fallback = src->naten_fallback ? xcalloc(src->naten_fallback, sizeof(char *)) : NULL;
	for (size_t i = 0; i < src->naten_fallback; i++)
		dst->aten_fallback[i] = xstrdup(src->aten_fallback[i]);
}

void lang_device_release(struct kopt_device *d)
{
	free(d->name);
	free(d->gpu);
	free(d->launcher);
}

void lang_agents_release(struct kopt_agents *a)
{
	free(a->name);
	for (int r = 0; r < KOPT_ROLE_COUNT; r++)
		lang_llm_release(&a->roles[r].llm);
}

void lang_model_release(struct kopt_model *m)
{
	free(m->name);
	free(m->source);
	free(m->path);
	free(m->group);
	for (size_t i = 0; i < m->nvariants; i++)
		lang_variant_release(&m->variants[i]);
	free(m->variants);
	for (size_t i = 0; i < m->nshapes; i++)
		lang_shape_release(&m->shapes[i]);
	free(m->shapes);
}

void lang_shape_release(struct kopt_shape *s)
{
	free(s->name);
	for (size_t i = 0; i < s->nset; i++) {
		free(s->set[i].key);
		free(s->set[i].json);
	}
	free(s->set);
	free(s->set_loc);
}

void lang_shape_copy(struct kopt_shape *dst, const struct kopt_shape *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->set = src->nset ? xcalloc(src->nset, sizeof *dst->set) : NULL;
	dst->set_loc = src->nset ? xcalloc(src->nset, sizeof *dst->set_loc) : NULL;
	for (size_t i = 0; i < src->nset; i++) {
		dst->set[i].key = xstrdup(src->set[i].key);
		dst->set[i].json = xstrdup(src->set[i].json);
		dst->set_loc[i] = src->set_loc[i];
	}
}

void lang_target_release(struct kopt_target *t)
{
	free(t->name);
	free(t->models);
}

void kopt_spec_free(kopt_spec *spec)
{
	if (!spec)
		return;
	for (size_t i = 0; i < spec->ndevices; i++)
		lang_device_release(&spec->devices[i]);
	free(spec->devices);
	for (size_t i = 0; i < spec->nagents; i++)
		lang_agents_release(&spec->agents[i]);
	free(spec->agents);
	for (size_t i = 0; i < spec->ngates; i++)
		free(spec->gates[i].name);
	free(spec->gates);
	for (size_t i = 0; i < spec->nmodels; i++)
		lang_model_release(&spec->models[i]);
	free(spec->models);
	for (size_t i = 0; i < spec->ntargets; i++)
		lang_target_release(&spec->targets[i]);
	free(spec->targets);
	for (size_t i = 0; i < spec->nfiles; i++)
		free(spec->files[i]);
	free(spec->files);
	for (size_t i = 0; i < spec->nroots; i++)
		free(spec->roots[i]);
	free(spec->roots);
	free(spec->file);
	free(spec->dir);
	free(spec->remote_cache);
	free(spec);
}

/* Linear: for the few lookups a command line makes. lang_load itself uses
 * hash tables. */
struct kopt_model *kopt_spec_model(const kopt_spec *spec, const char *name)
{
	for (size_t i = 0; i < spec->nmodels; i++)
		if (strcmp(spec->models[i].name, name) == 0)
			return &spec->models[i];
	return NULL;
}

struct kopt_target *kopt_spec_target(const kopt_spec *spec, const char *name)
{
	for (size_t i = 0; i < spec->ntargets; i++)
		if (strcmp(spec->targets[i].name, name) == 0)
			return &spec->targets[i];
	return NULL;
}


void lang_fmt_num(struct strbuf *sb, double x)
{
	char buf[64];
	if (x == 0) {
		strbuf_addstr(sb, "0");
		return;
	}
	if (x == floor(x) && fabs(x) < 1e15) {
		strbuf_addf(sb, "%.0f", x);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	strbuf_addstr(sb, buf);
}

void lang_fmt_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': strbuf_addstr(sb, "\\\""); break;
		case '\\': strbuf_addstr(sb, "\\\\"); break;
		case '\n': strbuf_addstr(sb, "\\n"); break;
		case '\t': strbuf_addstr(sb, "\\t"); break;
		case '\r': strbuf_addstr(sb, "\\r"); break;
		case '$': strbuf_addstr(sb, "\\$"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				strbuf_addf(sb, "\\x%02x", *p);
			else
				strbuf_addch(sb, *p);
		}
	}
	strbuf_addch(sb, '"');
}
