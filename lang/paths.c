/*
 * lang/paths.c: what a spec may read, and what its messages may show.
 *
 * Paths. Every file a spec names (include, source, a models declaration's
 * files and glob() matches) resolves, links and `..` followed, inside the
 * top spec's folder or a folder the user allows: --allow-root=DIR on the
 * command line (struct lang_opts), or allow_roots in the defaults block,
 * which allows from where it stands on (it is read in order, as the rest).
 * Anything else is an error that names the flag, and the file is not read.
 * An include must look like a spec (*.kopt, or Koptfile): a file of keys
 * that parses as variables (`KEY = "..."`) would otherwise give its
 * values to the spec, and its lines to error messages.
 *
 * Messages. Every diagnostic of a load is held until the load ends, then
 * handed on with the value of every env() of a secret (a name that
 * runtime/sandbox.c's rule calls one, or that a key_env names, unless
 * public_env lists it) replaced by "***", wherever the value went: a
 * path, a glob, a field's message. A top file whose name does not look
 * like a spec gets one message for all of its own, without its text.
 */
#define _GNU_SOURCE
#include "load.h"

#include "../runtime/sandbox.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* the shortest value redacted: shorter ones are no secret, and would
 * garble every message they occur in */
#define MIN_SECRET 4

bool lang_spec_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	return strcmp(base, "Koptfile") == 0 || (n > 5 && strcmp(base + n - 5, ".kopt") == 0);
}

static void add_root(struct loader *L, char *real)
{
	L->roots = xgrow(L->roots, &L->rootcap, L->nroots + 1, sizeof *L->roots);
	L->roots[L->nroots++] = real;
}

void lang_roots_init(struct loader *L, const char *dir, const struct lang_opts *o)
{
	char *real = realpath(dir && *dir ? dir : ".", NULL);
	L->root = real ? real : xstrdup(dir && *dir ? dir : ".");
	for (size_t i = 0; o && i < o->nroots; i++) {
		char *r = realpath(o->roots[i], NULL);
		if (r)
			add_root(L, r);
		else /* main.c checks them before the load */
			add_root(L, xstrdup(o->roots[i]));
	}
}

void lang_allow_root(struct loader *L, const struct kopt_loc *loc, const char *dir, const char *root)
{
	char *path = lang_join(dir, root);
	char *real = realpath(path, NULL);
	if (!real && errno == ENOENT) /* nothing below it to read, as a glob there matches nothing */
		lang_warn(&L->D, loc, "allow_roots: '%s' does not exist, and allows nothing", path);
	else if (!real)
		lang_err(&L->D, loc, "allow_roots: cannot use '%s': %s", path, strerror(errno));
	else
		add_root(L, real);
	free(path);
}

static bool below(const char *real, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return true;
	return strncmp(real, root, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

int lang_path_inside(struct loader *L, const struct kopt_loc *loc, const char *what, const char *path)
{
	char *real = realpath(path, NULL);
	if (!real)
		return 0; /* not there: the caller's own check says so */
	bool ok = below(real, L->root);
	for (size_t i = 0; i < L->nroots && !ok; i++)
		ok = below(real, L->roots[i]);
	free(real);
	if (ok)
		return 0;
	lang_err(&L->D, loc, "%s '%s' is outside the spec's folder (--allow-root=DIR, or allow_roots in the "
		 "defaults block, allows a folder outside it)", what, path);
	return -1;
}

/* ---- the held diagnostics ---- */

struct held {
	enum kopt_severity severity;
	struct kopt_loc loc;
	char *message;
};

static void hold(void *ctx, const struct kopt_diag *d)
{
	struct loader *L = ctx;
	L->held = xgrow(L->held, &L->heldcap, L->nheld + 1, sizeof *L->held);
	struct held *h = &L->held[L->nheld++];
	h->severity = d->severity;
	h->loc = d->loc;
	h->message = xstrdup(d->message);
}

void lang_hold_diags(struct loader *L, kopt_diag_fn *report, void *ctx)
{
	L->out_report = report;
	L->out_ctx = ctx;
	L->D.report = hold;
	L->D.ctx = L;
}

/* the values of the env() reads that are secrets (see the top) */
static const char **secret_values(struct loader *L, size_t *n)
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
	const char **out = xcalloc(L->nenvs + 1, sizeof *out);
	*n = 0;
	for (size_t i = 0; i < L->nenvs; i++) {
		const struct envuse *e = &L->envs[i];
		if (!e->value || strlen(e->value) < MIN_SECRET || lang_smap_get(&public, e->name))
			continue;
		if (lang_smap_get(&keys, e->name) || sandbox_env_secret(e->name, strlen(e->name)))
			out[(*n)++] = e->value;
	}
	lang_smap_release(&keys);
	lang_smap_release(&public);
	return out;
}

/* msg with every occurrence of each secret replaced by "***"; new string */
static char *redact(const char *msg, const char *const *secrets, size_t n)
{
	char *out = xstrdup(msg);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(secrets[i]);
		char *p;
		while ((p = strstr(out, secrets[i]))) {
			char *next = xasprintf("%.*s***%s", (int)(p - out), out, p + l);
			free(out);
			out = next;
		}
	}
	return out;
}

void lang_flush_diags(struct loader *L)
{
	size_t nsec;
	const char **secrets = secret_values(L, &nsec);
	size_t masked = 0;
	for (size_t i = 0; i < L->nheld; i++) {
		struct held *h = &L->held[i];
		if (L->mask_top && h->loc.file && strcmp(h->loc.file, L->files[0]) == 0) {
			masked++;
			continue;
		}
		char *m = redact(h->message, secrets, nsec);
		struct kopt_diag d = { h->severity, h->loc, m };
		if (L->out_report)
			L->out_report(L->out_ctx, &d);
		free(m);
	}
	if (masked && L->out_report) {
		enum kopt_severity worst = KOPT_NOTE;
		for (size_t i = 0; i < L->nheld; i++)
			if (L->held[i].loc.file && strcmp(L->held[i].loc.file, L->files[0]) == 0 && L->held[i].severity > worst)
				worst = L->held[i].severity;
		char *m = xasprintf("%zu diagnostic%s in a file that does not look like a spec (its name is not *.kopt "
				    "or Koptfile): its text is not shown", masked, kopt_plural(masked));
		struct kopt_diag d = { worst, { L->files[0], 0, 0, 0, 0 }, m };
		L->out_report(L->out_ctx, &d);
		free(m);
	}
	for (size_t i = 0; i < L->nheld; i++)
		free(L->held[i].message);
	free(L->held);
	L->held = NULL;
	L->nheld = L->heldcap = 0;
	free(secrets);
}

void lang_roots_release(struct loader *L)
{
	free(L->root);
	for (size_t i = 0; i < L->nroots; i++)
		free(L->roots[i]);
	free(L->roots);
}
