/* engine/dag.c: see dag.h */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "dag.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#define CHUNK 1024
#define STRBLOCK 65536

char *dag_strdup(struct dag *d, const char *s)
{
	size_t n = strlen(s) + 1;
	if (n > STRBLOCK / 4) {
		d->strs = xrealloc(d->strs, (d->nstrs + 1) * sizeof *d->strs);
		memmove(d->strs + 1, d->strs, d->nstrs * sizeof *d->strs); /* keep the current block last */
		d->strs[0] = xstrdup(s);
		d->nstrs++;
		return d->strs[0];
	}
	if (!d->nstrs || d->strused + n > STRBLOCK) {
		d->strs = xrealloc(d->strs, (d->nstrs + 1) * sizeof *d->strs);
		d->strs[d->nstrs++] = xmalloc(STRBLOCK);
		d->strused = 0;
	}
	char *p = d->strs[d->nstrs - 1] + d->strused;
	memcpy(p, s, n);
	d->strused += n;
	return p;
}

struct dag_node *dag_add_at(struct dag *d, unsigned kind, const char *path, void *ctx)
{
	if (!d->nchunks || d->chunkused == CHUNK) {
		d->chunks = xrealloc(d->chunks, (d->nchunks + 1) * sizeof *d->chunks);
		d->chunks[d->nchunks++] = xmalloc(CHUNK * sizeof **d->chunks);
		d->chunkused = 0;
	}
	struct dag_node *n = &d->chunks[d->nchunks - 1][d->chunkused++];
	memset(n, 0, sizeof *n);
	if (kind >= d->rules->nrules)
		kopt_die("internal: no rule of kind %u", kind);
	n->kind = (uint8_t)kind;
	n->rule = d->rules->rules[kind];
	n->path = (char *)path;
	n->ctx = ctx;
	n->seq = (uint32_t)d->nnodes;
	d->all = xgrow(d->all, &d->allcap, d->nnodes + 1, sizeof *d->all);
	d->all[d->nnodes++] = n;
	return n;
}

struct dag_node *dag_add(struct dag *d, unsigned kind, const char *path, void *ctx)
{
	return dag_add_at(d, kind, dag_strdup(d, path), ctx);
}

void dag_add_dep(struct dag_node *n, struct dag_node *dep, unsigned flags)
{
	if (!n->depcap) {
		n->deps = n->deps_in;
		n->depcap = 2;
	} else if (n->ndeps + 1 > n->depcap) {
		struct dag_dep *v = xmalloc(n->depcap * 2 * sizeof *v);
		memcpy(v, n->deps, n->ndeps * sizeof *v);
		if (n->deps != n->deps_in)
			free(n->deps);
		n->deps = v;
		n->depcap *= 2;
	}
	n->deps[n->ndeps].node = dep;
	n->deps[n->ndeps++].flags = flags;
	if (!dep->usercap) {
		dep->users = dep->users_in;
		dep->usercap = 2;
	} else if (dep->nusers + 1 > dep->usercap) {
		struct dag_node **v = xmalloc(dep->usercap * 2 * sizeof *v);
		memcpy(v, dep->users, dep->nusers * sizeof *v);
		if (dep->users != dep->users_in)
			free(dep->users);
		dep->users = v;
		dep->usercap *= 2;
	}
	dep->users[dep->nusers++] = n;
	if (!(dep->flags & DAG_SETTLED))
		n->npending++;
}

static void free_node(struct dag_node *n)
{
	if (n->deps != n->deps_in)
		free(n->deps);
	if (n->users != n->users_in)
		free(n->users);
	free(n->ingredients);
	free(n->why);
	json_decref(n->result);
}

struct dag *dag_new(const kopt_spec *spec, char *const *targets, int ntargets,
		    const struct engine_opts *opts, kopt_cache *cache, kopt_blog *blog,
		    const char *out_dir)
{
	struct dag *d = xcalloc(1, sizeof *d);
	d->spec = spec;
	d->opts = opts;
	d->rules = opts->rules;
	d->cache = cache;
	d->blog = blog;
	d->out_dir = xstrdup(out_dir);
	if (!d->rules)
		kopt_die("internal: a build without rules");
	if (d->rules->plan(d, targets, ntargets) < 0) {
		dag_free(d);
		return NULL;
	}
	return d;
}

void dag_free(struct dag *d)
{
	if (!d)
		return;
	if (d->rules->release)
		d->rules->release(d);
	for (size_t i = 0; i < d->nnodes; i++)
		free_node(d->all[i]);
	free(d->all);
	for (size_t i = 0; i < d->nchunks; i++)
		free(d->chunks[i]);
	free(d->chunks);
	for (size_t i = 0; i < d->nstrs; i++)
		free(d->strs[i]);
	free(d->strs);
	free(d->env_read);
	free(d->out_dir);
	free(d);
}

json_t *dag_result(struct dag *d, struct dag_node *n)
{
	(void)d;
	if (n->result)
		return n->result;
	if (!n->manifest)
		return NULL;
	json_error_t err;
	n->result = json_loadb(n->manifest, n->manifest_len, 0, &err);
	if (!n->result) {
		kopt_warn("the cached result of %s %s does not parse (%s); ignored",
			  n->rule->name, n->path, err.text);
	} else if (!json_is_object(n->result)) {
		kopt_warn("the cached result of %s %s is not a JSON object; ignored", n->rule->name, n->path);
		json_decref(n->result);
		n->result = NULL;
	}
	return n->result;
}

/* skips one JSON value at p (< end); returns the byte after it, or NULL */
static const char *skip_value(const char *p, const char *end)
{
	int depth = 0;
	while (p < end) {
		char c = *p;
		if (c == '"') {
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\')
					p++;
			if (p >= end)
				return NULL;
			p++;
			if (depth == 0)
				return p;
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']') {
			if (--depth < 0)
				return NULL;
			if (depth == 0)
				return p + 1;
		} else if (depth == 0 && (c == ',')) {
			return p;
		}
		p++;
	}
	return depth == 0 ? p : NULL;
}

json_t *dag_manifest_field(const char *json, size_t len, const char *key)
{
	const char *p = json, *end = json + len;
	size_t kl = strlen(key);
	if (p >= end || *p != '{')
		return NULL;
	p++;
	while (p < end && *p == '"') {
		const char *k = p + 1;
		const char *kend = skip_value(p, end);
		if (!kend || kend >= end || *kend != ':')
			return NULL;
		const char *v = kend + 1;
		const char *vend = skip_value(v, end);
		if (!vend)
			return NULL;
		if ((size_t)(kend - 1 - k) == kl && memcmp(k, key, kl) == 0)
			return json_loadb(v, (size_t)(vend - v), JSON_DECODE_ANY, NULL);
		if (vend >= end || *vend != ',')
			return NULL;
		p = vend + 1;
	}
	return NULL;
}

static void add_part(struct strbuf *sb, const char *key, json_t *v, bool skip_empty)
{
	if (!v || (skip_empty && json_is_object(v) && json_object_size(v) == 0))
		return;
	char *js = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
	strbuf_addf(sb, ",\"%s\":%s", key, js ? js : "null");
	free(js);
}

char *dag_manifest(const char *kind, const char *path, json_t *outputs, json_t *objects,
		   json_t *stable, json_t *summary, json_t *meas)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *k = json_string(kind), *pa = json_string(path);
	char *ks = json_dumps(k, JSON_ENCODE_ANY), *ps = json_dumps(pa, JSON_ENCODE_ANY);
	strbuf_addf(&sb, "{\"kind\":%s,\"path\":%s", ks, ps);
	free(ks);
	free(ps);
	json_decref(k);
	json_decref(pa);
	add_part(&sb, "outputs", outputs, true);
	add_part(&sb, "objects", objects, true);
	add_part(&sb, "stable", stable, false);
	add_part(&sb, "summary", summary, true);
	add_part(&sb, "meas", meas, true);
	strbuf_addch(&sb, '}');
	return strbuf_detach(&sb);
}

void dag_describe(const struct dag_node *n, struct strbuf *out)
{
	strbuf_addstr(out, n->rule->name);
	strbuf_addch(out, ' ');
	strbuf_addstr(out, n->path);
}

struct dag_node *dag_find(struct dag *d, const char *what)
{
	const char *sp = strchr(what, ' ');
	for (size_t i = 0; i < d->nnodes; i++) {
		struct dag_node *n = d->all[i];
		if (sp) {
			size_t kl = (size_t)(sp - what);
			if (strlen(n->rule->name) == kl && strncmp(n->rule->name, what, kl) == 0 &&
			    strcmp(n->path, sp + 1) == 0)
				return n;
		} else if (strcmp(n->path, what) == 0) {
			/* a bare path: the step that decides, not a secondary one */
			if (n->rule->secondary)
				continue;
			return n;
		}
	}
	return NULL;
}

json_t *dag_env(struct dag *d, const struct kopt_device *dev)
{
	if (!dag_env_read(d, dev)) {
		d->env_read = xrealloc(d->env_read, (d->nenv_read + 1) * sizeof *d->env_read);
		d->env_read[d->nenv_read++] = dev;
	}
	return cache_env_get(d->cache, dag_env_name(dev));
}

bool dag_env_read(const struct dag *d, const struct kopt_device *dev)
{
	for (size_t i = 0; i < d->nenv_read; i++)
		if (d->env_read[i] == dev)
			return true;
	return false;
}

const char *dag_env_name(const struct kopt_device *dev)
{
	return dev ? dev->name : "default";
}

kopt_hash dag_stable_hash(const json_t *stable)
{
	char *s = json_dumps(stable, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	kopt_hash h = hash_str(s ? s : "");
	free(s);
	return h;
}
