/*
 * lang/spec.c: the checked spec's lifecycle, lookups and the canonical dump.
 *
 * Dump format 1 (`koptmake -t dump`): a header comment, the top file, its
 * folder, every file read, the default target; then every device, agents
 * set, gates set, model and target in declaration order, each with all of
 * its fields, defaults included, one per line. Strings are double-quoted
 * with C-like escapes, absent values print as `none`, numbers in the
 * shortest form that reads back to the same double (durations in seconds),
 * names bare when they are plain words and quoted otherwise. The header
 * has a `remote_cache` line when the defaults set one. A comment after
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

const char *const lang_role_names[KOPT_ROLE_COUNT] = { "analyst", "planner", "coder", "debugger", "tuner" };
const char *const lang_precision_names[3] = { "strict", "tf32", "loose" };
static const char *const kind_names[] = { "torch", "triton", "helion" };

static void put_role(FILE *out, const char *role, const struct kopt_role_cfg *r)
{
	fprintf(out, "\t%s = ", role);
	if (r->backend == KOPT_BACKEND_BUILTIN) {
		fputs("builtin\n", out);
		return;
	}
	fputs("llm(", out);
	put_str(out, r->llm.provider);
	fputs(", model = ", out);
	put_str(out, r->llm.model);
	fputs(", url = ", out);
	put_str(out, r->llm.url);
	fputs(", key_env = ", out);
	put_str(out, r->llm.key_env);
	fputs(", temperature = ", out);
	put_num(out, r->llm.temperature);
	fprintf(out, ", max_tokens = %ld)\n", r->llm.max_tokens);
}

static void put_variant(FILE *out, const struct kopt_variant *v)
{
	fputs("\tvariant ", out);
	put_name(out, v->name);
	fputs(" {", out);
	put_loc(out, &v->loc);
	fputs("\t\tmode = ", out);
	put_str(out, v->mode);
	fputs("\n\t\toptions = {", out);
	for (size_t i = 0; i < v->noptions; i++) {
		fputc(' ', out);
		put_str(out, v->options[i].key);
		fprintf(out, " = %s", v->options[i].json);
	}
	fputs(v->noptions ? " }\n" : "}\n", out);
	fputs("\t\taten_fallback = [", out);
	for (size_t i = 0; i < v->naten_fallback; i++) {
		if (i)
			fputs(", ", out);
		put_str(out, v->aten_fallback[i]);
	}
	fprintf(out, "]\n\t\tcudnn_benchmark = %s\n\t}\n", v->cudnn_benchmark ? "true" : "false");
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
	if (spec->remote_cache) {
		fputs("remote_cache ", out);
		put_str(out, spec->remote_cache);
		fputc('\n', out);
	}

	for (size_t i = 0; i < spec->ndevices; i++) {
		const struct kopt_device *d = &spec->devices[i];
		fputs("\ndevice ", out);
		put_name(out, d->name);
		fputs(" {", out);
		put_loc(out, &d->loc);
		fputs("\tgpu = ", out);
		put_str(out, d->gpu);
		fprintf(out, "\n\tgpus = %d\n\ttimeout = ", d->gpus);
		put_num(out, d->timeout_s);
		fputs("\n\tlauncher = ", out);
		put_str(out, d->launcher);
		fputs("\n}\n", out);
	}
	for (size_t i = 0; i < spec->nagents; i++) {
		const struct kopt_agents *a = &spec->agents[i];
		fputs("\nagents ", out);
		put_name(out, a->name);
		fputs(" {", out);
		put_loc(out, &a->loc);
		fprintf(out, "\tbudget = %d\n\thot = ", a->budget);
		put_num(out, a->hot);
		fprintf(out, "\n\tseed = %llu\n\tmax_kernels = %d\n\tllm_calls = %d\n\ttokens = %ld\n\twall = ",
			(unsigned long long)a->seed, a->max_kernels, a->llm_calls, a->tokens);
		put_num(out, a->wall_s);
		fprintf(out, "\n\tauto_variants = %s\n", a->auto_variants ? "true" : "false");
		for (int r = 0; r < KOPT_ROLE_COUNT; r++)
			put_role(out, lang_role_names[r], &a->roles[r]);
		fputs("}\n", out);
	}
	for (size_t i = 0; i < spec->ngates; i++) {
		const struct kopt_gates *g = &spec->gates[i];
		fputs("\ngates ", out);
		put_name(out, g->name);
		fputs(" {", out);
		put_loc(out, &g->loc);
		fprintf(out, "\tseeds = %d\n\tatol = ", g->seeds);
		put_num(out, g->atol);
		fputs("\n\trtol = ", out);
		put_num(out, g->rtol);
		fputs("\n\tatol_half = ", out);
		put_num(out, g->atol_half);
		fputs("\n\trtol_half = ", out);
		put_num(out, g->rtol_half);
		fprintf(out, "\n\tfp64_fallback = %s\n\tgamma = ", g->fp64_fallback ? "true" : "false");
		put_num(out, g->gamma);
		fprintf(out, "\n\trepeats = %d\n\tprecision = %s\n}\n", g->repeats,
			lang_precision_names[g->precision <= KOPT_PRECISION_LOOSE ? g->precision : 0]);
	}
	for (size_t i = 0; i < spec->nmodels; i++) {
		const struct kopt_model *m = &spec->models[i];
		fputs("\nmodel ", out);
		put_name(out, m->name);
		fputs(" {", out);
		put_loc(out, &m->loc);
		fprintf(out, "\tkind = %s\n\tsource = ", kind_names[m->kind <= KOPT_MODEL_HELION ? m->kind : 0]);
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
