/*
 * lang/spec.c: the checked spec's lifecycle, lookups and the canonical dump.
 *
 * Dump format 1 (`koptmake -t dump`): a header comment, the top file, its
 * folder, every file read, the default target; then every device, agents
 * set, gates set, model and target in declaration order, each with all of
 * its fields, defaults included, one per line. Strings are double-quoted
 * with C-like escapes, absent values print as `none`, numbers in the
 * shortest form that reads back to the same double (durations in seconds),
 * names bare when they are plain words and quoted otherwise. A comment after
 * each opening brace gives the declaration's file:line:col. The same spec
 * always dumps to the same bytes.
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
	free(spec->file);
	free(spec->dir);
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

/* ---- the dump ---- */

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

static void put_str(FILE *out, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	if (s)
		lang_fmt_str(&sb, s);
	else
		strbuf_addstr(&sb, "none");
	fputs(sb.buf, out);
	strbuf_release(&sb);
}

static void put_num(FILE *out, double x)
{
	struct strbuf sb = STRBUF_INIT;
	lang_fmt_num(&sb, x);
	fputs(sb.buf, out);
	strbuf_release(&sb);
}

static bool plain_word(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return false;
	return true;
}

static void put_name(FILE *out, const char *s)
{
	if (!s)
		fputs("none", out);
	else if (plain_word(s) && strcmp(s, "true") && strcmp(s, "false"))
		fputs(s, out);
	else
		put_str(out, s);
}

static void put_loc(FILE *out, const struct kopt_loc *l)
{
	if (l->file && l->line > 0)
		fprintf(out, "  # %s:%d:%d\n", l->file, l->line, l->col);
	else
		fputs("  # implicit\n", out);
}


static void put_value(FILE *out, const struct lang_field *f, const void *base)
{
	const char *p = (const char *)base + f->off;
	switch (f->type) {
	case LANG_F_INT:
		fprintf(out, "%d", *(const int *)p);
		break;
	case LANG_F_LONG:
		fprintf(out, "%ld", *(const long *)p);
		break;
	case LANG_F_U64:
		fprintf(out, "%llu", (unsigned long long)*(const uint64_t *)p);
		break;
	case LANG_F_REAL:
	case LANG_F_FRACTION:
	case LANG_F_DURATION:
		put_num(out, *(const double *)p);
		break;
	case LANG_F_BOOL:
		fputs(*(const bool *)p ? "true" : "false", out);
		break;
	case LANG_F_PRECISION: {
		enum kopt_precision x = *(const enum kopt_precision *)p;
		fputs(lang_precision_names[x < KOPT_PRECISION_COUNT ? x : 0], out);
		break;
	}
	case LANG_F_OPTIONS: {
		const struct kopt_option *o = *(struct kopt_option *const *)p;
		size_t n = *(const size_t *)((const char *)base + f->noff);
		fputc('{', out);
		for (size_t i = 0; i < n; i++) {
			fputc(' ', out);
			put_str(out, o[i].key);
			fprintf(out, " = %s", o[i].json);
		}
		fputs(n ? " }" : "}", out);
		break;
	}
	case LANG_F_STRLIST: {
		char *const *v = *(char **const *)p;
		size_t n = *(const size_t *)((const char *)base + f->noff);
		fputc('[', out);
		for (size_t i = 0; i < n; i++) {
			if (i)
				fputs(", ", out);
			put_str(out, v[i]);
		}
		fputc(']', out);
		break;
	}
	case LANG_F_ROLE: {
		const struct kopt_role_cfg *r = (const struct kopt_role_cfg *)p;
		if (r->backend == KOPT_BACKEND_BUILTIN) {
			fputs("builtin", out);
			break;
		}
		/* llm(PROVIDER, NAME = VALUE, ...): the first argument is positional */
		fputs("llm(", out);
		for (size_t i = 0; i < lang_llm_fields.n; i++) {
			if (i)
				fprintf(out, ", %s = ", lang_llm_fields.f[i].name);
			put_value(out, &lang_llm_fields.f[i], &r->llm);
		}
		fputc(')', out);
		break;
	}
	default: /* LANG_F_STR, LANG_F_PROVIDER, LANG_F_MODE */
		put_str(out, *(char *const *)p);
		break;
	}
}

/* every field of a block, one per line, in the list's order */
static void put_fields(FILE *out, const struct lang_fields *fs, const void *base, const char *indent)
{
	for (size_t i = 0; i < fs->n; i++) {
		fprintf(out, "%s%s = ", indent, fs->f[i].name);
		put_value(out, &fs->f[i], base);
		fputc('\n', out);
	}
}

static void put_variant(FILE *out, const struct kopt_variant *v)
{
	fputs("\tvariant ", out);
	put_name(out, v->name);
	fputs(" {", out);
	put_loc(out, &v->loc);
	put_fields(out, &lang_variant_fields, v, "\t\t");
	fputs("\t}\n", out);
}

void lang_dump(const kopt_spec *spec, FILE *out)
{
	fputs("# koptmake spec, dump format 1\nfile ", out);
	put_str(out, spec->file);
	fputs("\ndir ", out);
	put_str(out, spec->dir);
	fputs("\nfiles [", out);
	for (size_t i = 0; i < spec->nfiles; i++) {
		if (i)
			fputs(", ", out);
		put_str(out, spec->files[i]);
	}
	fputs("]\ndefault ", out);
	put_name(out, spec->default_target ? spec->default_target->name : NULL);
	fputc('\n', out);

	for (size_t i = 0; i < spec->ndevices; i++) {
		fputs("\ndevice ", out);
		put_name(out, spec->devices[i].name);
		fputs(" {", out);
		put_loc(out, &spec->devices[i].loc);
		put_fields(out, &lang_device_fields, &spec->devices[i], "\t");
		fputs("}\n", out);
	}
	for (size_t i = 0; i < spec->nagents; i++) {
		fputs("\nagents ", out);
		put_name(out, spec->agents[i].name);
		fputs(" {", out);
		put_loc(out, &spec->agents[i].loc);
		put_fields(out, &lang_agents_fields, &spec->agents[i], "\t");
		fputs("}\n", out);
	}
	for (size_t i = 0; i < spec->ngates; i++) {
		fputs("\ngates ", out);
		put_name(out, spec->gates[i].name);
		fputs(" {", out);
		put_loc(out, &spec->gates[i].loc);
		put_fields(out, &lang_gates_fields, &spec->gates[i], "\t");
		fputs("}\n", out);
	}
	for (size_t i = 0; i < spec->nmodels; i++) {
		const struct kopt_model *m = &spec->models[i];
		fputs("\nmodel ", out);
		put_name(out, m->name);
		fputs(" {", out);
		put_loc(out, &m->loc);
		fprintf(out, "\tkind = %s\n\tsource = ", lang_model_kind_names[m->kind < KOPT_MODEL_KIND_COUNT ? m->kind : 0]);
		put_str(out, m->source);
		fputs("\n\tpath = ", out);
		put_str(out, m->path);
		fputs("\n\tgroup = ", out);
		put_name(out, m->group);
		fputs("\n\tdevice = ", out);
		put_name(out, m->device ? m->device->name : NULL);
		fputs("\n\tagents = ", out);
		put_name(out, m->agents ? m->agents->name : NULL);
		fputs("\n\tgates = ", out);
		put_name(out, m->gates ? m->gates->name : NULL);
		fputc('\n', out);
		for (size_t v = 0; v < m->nvariants; v++)
			put_variant(out, &m->variants[v]);
		fputs("}\n", out);
	}
	for (size_t i = 0; i < spec->ntargets; i++) {
		const struct kopt_target *t = &spec->targets[i];
		fputs("\ntarget ", out);
		put_name(out, t->name);
		fputs(" = [", out);
		for (size_t k = 0; k < t->nmodels; k++) {
			if (k)
				fputs(", ", out);
			put_name(out, t->models[k]->name);
		}
		fputc(']', out);
		put_loc(out, &t->loc);
	}
}
