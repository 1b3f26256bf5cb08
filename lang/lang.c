/*
 * lang/lang.c: the entry points of lang.h. lang_load and lang_load_buffer
 * read a spec (load.h says how the parts of lang/ share the work);
 * lang_dump writes the checked spec back.
 *
 * Dump format 1 (`koptmake -t dump`): a header comment, the top file, its
 * folder, every file read, the default target; then every device, agents
 * set, gates set, model and target in declaration order, each with all of
 * its fields, defaults included, one per line, in the order of the lists of
 * fields.h. Strings are double-quoted with C-like escapes, absent values
 * print as `none`, numbers in the shortest form that reads back to the same
 * double (durations in seconds), names bare when they are plain words and
 * quoted otherwise. The header has a `remote_cache` line when the defaults
 * set one. A model's shapes follow its variants, each name it sets with its
 * value as JSON. A comment after each opening brace gives the
 * declaration's file:line:col. The same spec always dumps to the same bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include "load.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- loading ---- */

char *lang_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

char *lang_join(const char *dir, const char *rel)
{
	size_t n = strlen(dir);
	if (rel[0] == '/' || !strcmp(dir, ".") || n == 0)
		return xstrdup(rel);
	if (dir[n - 1] == '/')
		return xasprintf("%s%s", dir, rel);
	return xasprintf("%s/%s", dir, rel);
}

/* reads one file's text: key (owned, taken) identifies it for include cycles */
void lang_load_text(struct loader *L, const char *path, const char *dir, const char *src, size_t len,
		      const char *key)
{
	L->files = xgrow(L->files, &L->filescap, L->nfiles + 1, sizeof *L->files);
	char *file = L->files[L->nfiles++] = xstrdup(path);
	L->keys = xgrow(L->keys, &L->keyscap, L->nkeys + 1, sizeof *L->keys);
	L->keys[L->nkeys++] = (char *)key;
	lang_smap_put(&L->seen, key, 0);
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
		lang_do_stmt(L, &P.stmts[i], dir);
	lang_parse_release(&P);
	L->depth--;
}

static void loader_release(struct loader *L)
{
	for (size_t i = 0; i < L->nvars; i++) {
		free(L->vars[i].name);
		free(L->vars[i].unset_env);
		ast_value_free(L->vars[i].value);
	}
	free(L->vars);
	lang_smap_release(&L->varmap);
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
	lang_smap_release(&L->devmap);
	lang_smap_release(&L->agmap);
	lang_smap_release(&L->gatemap);
	lang_smap_release(&L->names);
	lang_smap_release(&L->seen);
	free(L->remote_cache);
	for (size_t i = 0; i < L->npublic_env; i++)
		free(L->public_env[i]);
	free(L->public_env);
	for (size_t i = 0; i < L->nenvs; i++) {
		free(L->envs[i].name);
		free(L->envs[i].value);
	}
	free(L->envs);
	lang_roots_release(L);
	/* the rest is always released */
}

static void loader_release_side(struct loader *L)
{
	for (size_t i = 0; i < L->nmodels; i++) {
		lang_ref_release(&L->pm[i].device);
		lang_ref_release(&L->pm[i].agents);
		lang_ref_release(&L->pm[i].gates);
	}
	free(L->pm);
	for (size_t i = 0; i < L->ntargets; i++) {
		for (size_t k = 0; k < L->pt[i].n; k++)
			lang_ref_release(&L->pt[i].items[k]);
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
	lang_ref_release(&L->defaults.device);
	lang_ref_release(&L->defaults.agents);
	lang_ref_release(&L->defaults.gates);
	lang_ref_release(&L->default_target);
}

/* spec: whether name is a file whose name looks like a spec (a buffer is one) */
static int load(const char *name, const char *dir, const char *src, size_t len, char *key, bool spec,
		const struct lang_opts *o, kopt_diag_fn *report, void *ctx, kopt_spec **out)
{
	struct loader L;
	memset(&L, 0, sizeof L);
	lang_hold_diags(&L, report, ctx);
	lang_roots_init(&L, dir, o);
	L.mask_top = !spec;
	L.topfile = name;
	lang_load_text(&L, name, dir, src, len, key);
	L.topfile = L.files[0];
	lang_check_env(&L);
	struct kopt_target *def = NULL;
	if (!L.syntax_errors) {
		lang_resolve_models(&L);
		lang_resolve_targets(&L);
		def = lang_resolve_default(&L);
		lang_check_shapes(&L);
	}
	loader_release_side(&L);
	lang_flush_diags(&L);
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
	s->roots = xcalloc(L.nroots + 1, sizeof *s->roots);
	s->roots[s->nroots++] = xstrdup(L.root);
	for (size_t i = 0; i < L.nroots; i++)
		s->roots[s->nroots++] = xstrdup(L.roots[i]);
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
	return lang_load_opts(path, NULL, report, ctx, out);
}

int lang_load_opts(const char *path, const struct lang_opts *o, kopt_diag_fn *report, void *ctx, kopt_spec **out)
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
	char *dir = lang_dir_of(path);
	int r = load(path, dir, sb.buf, sb.len, lang_file_key(path, &st), lang_spec_name(path), o, report, ctx, out);
	free(dir);
	strbuf_release(&sb);
	return r;
}

int lang_load_buffer(const char *name, const char *dir, const char *src, size_t len,
		     kopt_diag_fn *report, void *ctx, kopt_spec **out)
{
	*out = NULL;
	char *d = dir ? xstrdup(dir) : lang_dir_of(name);
	int r = load(name, d, src, len, xasprintf("buffer:%s", name), true, NULL, report, ctx, out);
	free(d);
	return r;
}

/* ---- the dump ---- */

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

static void put_shape(FILE *out, const struct kopt_shape *s)
{
	fputs("\tshape ", out);
	put_name(out, s->name);
	fputs(" {", out);
	put_loc(out, &s->loc);
	for (size_t i = 0; i < s->nset; i++)
		fprintf(out, "\t\t%s = %s\n", s->set[i].key, s->set[i].json);
	fputs("\t}\n", out);
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
	if (spec->remote_cache) {
		fputs("remote_cache ", out);
		put_str(out, spec->remote_cache);
		fputc('\n', out);
	}

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
		for (size_t v = 0; v < m->nshapes; v++)
			put_shape(out, &m->shapes[v]);
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
