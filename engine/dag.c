/* engine/dag.c: see dag.h */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "dag.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../agents/agent.h"
#include "../rules/rules.h"

#define CHUNK 1024
#define STRBLOCK 65536

/* a copy of s in the dag's string blocks (freed with the dag) */
static char *dag_strdup(struct dag *d, const char *s)
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

/* a node whose path already lives in the string blocks */
static struct dag_node *new_node_at(struct dag *d, enum dag_kind kind, const char *path)
{
	if (!d->nchunks || d->chunkused == CHUNK) {
		d->chunks = xrealloc(d->chunks, (d->nchunks + 1) * sizeof *d->chunks);
		d->chunks[d->nchunks++] = xmalloc(CHUNK * sizeof **d->chunks);
		d->chunkused = 0;
	}
	struct dag_node *n = &d->chunks[d->nchunks - 1][d->chunkused++];
	memset(n, 0, sizeof *n);
	n->kind = (uint8_t)kind;
	n->rule = d->rules->rules[kind];
	n->cand = -1;
	n->path = (char *)path;
	d->all = xgrow(d->all, &d->allcap, d->nnodes + 1, sizeof *d->all);
	d->all[d->nnodes++] = n;
	return n;
}

/* takes path (malloc'd) and keeps a copy in the string blocks */
static struct dag_node *new_node(struct dag *d, enum dag_kind kind, char *path)
{
	struct dag_node *n = new_node_at(d, kind, dag_strdup(d, path));
	free(path);
	return n;
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

static void add_dep(struct dag_node *n, struct dag_node *dep)
{
	dag_add_dep(n, dep, 0);
}

static void announce(struct dag *d, struct dag_node *n)
{
	if (d->on_new)
		d->on_new(d->on_new_ctx, n);
}

/* variant v of dm: its capture and profile, inputs of the stitch */
static void add_mv(struct dag *d, struct dag_model *dm, size_t v, const struct kopt_variant *var)
{
	struct dag_mv *mv = &dm->mvs[v];
	mv->model = dm;
	mv->variant = var;
	mv->index = v;
	hash_key_init_bare(&mv->variant_key);
	rule_key_variant(&mv->variant_key, var);
	kopt_hash parts[2] = { dm->file_hash, hash_bytes(mv->variant_key.ser.buf, mv->variant_key.ser.len) };
	mv->affinity = hash_bytes(parts, sizeof parts).lo | 1; /* never 0 */
	mv->capture = new_node(d, DAG_CAPTURE, xasprintf("%s/%s", dm->spec->name, var->name));
	mv->capture->model = dm;
	mv->capture->mv = mv;
	mv->capture->device = dm->spec->device;
	mv->capture->affinity = mv->affinity;
	mv->profile = new_node(d, DAG_PROFILE, xstrdup(mv->capture->path));
	mv->profile->model = dm;
	mv->profile->mv = mv;
	mv->profile->device = dm->spec->device;
	mv->profile->affinity = mv->affinity;
	add_dep(mv->profile, mv->capture);
	add_dep(dm->stitch, mv->capture);
	add_dep(dm->stitch, mv->profile);
}

static struct dag_model *add_model(struct dag *d, const struct kopt_model *m)
{
	for (size_t i = 0; i < d->nmodels; i++)
		if (d->models[i].spec == m)
			return &d->models[i];
	struct dag_model *dm = &d->models[d->nmodels++];
	memset(dm, 0, sizeof *dm);
	dm->spec = m;
	struct strbuf sb = STRBUF_INIT;
	if (!m->path || strbuf_read_file(&sb, m->path) < 0)
		dm->file_error = xasprintf("cannot read the model file '%s': %s",
					   m->path ? m->path : "(none)", strerror(errno));
	else
		dm->file_hash = hash_bytes(sb.buf, sb.len);
	strbuf_release(&sb);
	hash_key_init_bare(&dm->gates_key);
	if (m->gates)
		rule_key_gates(&dm->gates_key, m->gates);
	dm->agent_fp = m->agents ? agent_fingerprint(m->agents) : xstrdup("builtin-default;" AGENT_BUILTIN_VERSION);
	dm->nmv = m->nvariants;
	dm->mvs = xcalloc(m->nvariants + 2, sizeof *dm->mvs); /* + the agents' own */
	dm->stitch = new_node(d, DAG_STITCH, xstrdup(m->name));
	dm->stitch->model = dm;
	dm->stitch->device = m->device;
	for (size_t v = 0; v < m->nvariants; v++)
		add_mv(d, dm, v, &m->variants[v]);
	return dm;
}

/* lookups by name (the lang library has its own; these keep the engine standalone) */
static const struct kopt_target *find_target(const kopt_spec *spec, const char *name)
{
	for (size_t i = 0; i < spec->ntargets; i++)
		if (strcmp(spec->targets[i].name, name) == 0)
			return &spec->targets[i];
	return NULL;
}

static const struct kopt_model *find_model(const kopt_spec *spec, const char *name)
{
	for (size_t i = 0; i < spec->nmodels; i++)
		if (strcmp(spec->models[i].name, name) == 0)
			return &spec->models[i];
	return NULL;
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
	d->models = xcalloc(spec->nmodels ? spec->nmodels : 1, sizeof *d->models);
	d->reports = xcalloc(spec->ntargets + 1, sizeof *d->reports);

	const struct kopt_target **want_t = xcalloc(spec->ntargets + 1, sizeof *want_t);
	size_t nwant_t = 0;
	const struct kopt_model **want_m = xcalloc(spec->nmodels + 1, sizeof *want_m);
	size_t nwant_m = 0;
	if (ntargets == 0) {
		if (spec->default_target)
			want_t[nwant_t++] = spec->default_target;
		else
			for (size_t i = 0; i < spec->nmodels; i++)
				want_m[nwant_m++] = &spec->models[i];
	}
	for (int i = 0; i < ntargets; i++) {
		const struct kopt_target *t = find_target(spec, targets[i]);
		const struct kopt_model *m = t ? NULL : find_model(spec, targets[i]);
		if (t) {
			bool dup = false;
			for (size_t j = 0; j < nwant_t; j++)
				dup |= want_t[j] == t;
			if (!dup)
				want_t[nwant_t++] = t;
		} else if (m) {
			bool dup = false;
			for (size_t j = 0; j < nwant_m; j++)
				dup |= want_m[j] == m;
			if (!dup)
				want_m[nwant_m++] = m;
		} else {
			const char **names = xcalloc(spec->ntargets + spec->nmodels + 1, sizeof *names);
			size_t nn = 0;
			for (size_t j = 0; j < spec->ntargets; j++)
				names[nn++] = spec->targets[j].name;
			for (size_t j = 0; j < spec->nmodels; j++)
				names[nn++] = spec->models[j].name;
			const char *hint = kopt_suggest(targets[i], names, nn);
			if (hint)
				kopt_error("no target or model named '%s' (did you mean '%s'?)", targets[i], hint);
			else
				kopt_error("no target or model named '%s'", targets[i]);
			free(names);
			free(want_t);
			free(want_m);
			dag_free(d);
			return NULL;
		}
	}
	for (size_t i = 0; i < nwant_t; i++) {
		const struct kopt_target *t = want_t[i];
		struct dag_node *r = new_node(d, DAG_REPORT, xstrdup(t->name));
		r->target = t;
		for (size_t j = 0; j < t->nmodels; j++) {
			struct dag_model *dm = add_model(d, t->models[j]);
			add_dep(r, dm->stitch);
		}
		d->reports[d->nreports++] = r;
	}
	for (size_t i = 0; i < nwant_m; i++)
		add_model(d, want_m[i]);
	free(want_t);
	free(want_m);
	for (size_t i = 0; i < d->nnodes; i++)
		announce(d, d->all[i]);
	return d;
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

void dag_free(struct dag *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nnodes; i++)
		free_node(d->all[i]);
	free(d->all);
	for (size_t i = 0; i < d->nchunks; i++)
		free(d->chunks[i]);
	free(d->chunks);
	for (size_t i = 0; i < d->nstrs; i++)
		free(d->strs[i]);
	free(d->strs);
	for (size_t i = 0; i < d->nmodels; i++) {
		struct dag_model *dm = &d->models[i];
		for (size_t v = 0; v < dm->nmv; v++) {
			struct dag_mv *mv = &dm->mvs[v];
			for (size_t k = 0; k < mv->nkernels; k++) {
				free(mv->kernels[k].propose);
				free(mv->kernels[k].verify);
			}
			free(mv->kernels);
			free(mv->summary);
			hash_key_release(&mv->variant_key);
		}
		free(dm->mvs);
		for (size_t a = 0; a + dm->spec->nvariants < dm->nmv; a++)
			if (dm->auto_variants[a].naten_fallback)
				free(dm->auto_variants[a].aten_fallback);
		hash_key_release(&dm->gates_key);
		free(dm->agent_fp);
		free(dm->file_error);
	}
	free(d->models);
	free(d->reports);
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
	if (!n->result || !json_is_object(n->result)) {
		kopt_warn("the cached result of %s %s does not parse (%s); ignored",
			  n->rule->name, n->path, err.text);
		json_decref(n->result);
		n->result = NULL;
	}
	return n->result;
}

/* "<model>/<variant>/<kernel>/c<i>" without printf */
static char *cand_path(const char *mvpath, const char *kernel, int i)
{
	size_t a = strlen(mvpath), b = strlen(kernel);
	char num[16], *q = num + sizeof num;
	unsigned u = (unsigned)i;
	do
		*--q = (char)('0' + u % 10);
	while ((u /= 10));
	size_t c = (size_t)(num + sizeof num - q);
	char *p = xmalloc(a + b + c + 4);
	memcpy(p, mvpath, a);
	p[a] = '/';
	memcpy(p + a + 1, kernel, b);
	p[a + 1 + b] = '/';
	p[a + 2 + b] = 'c';
	memcpy(p + a + 3 + b, q, c);
	p[a + 3 + b + c] = '\0';
	return p;
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

struct hot {
	double share;
	const char *name;
	kopt_hash ident;
};

static int cmp_hot(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t dag_expand(struct dag *d, struct dag_mv *mv)
{
	if (mv->expanded)
		return 0;
	mv->expanded = true;
	/* the profile's summary: one line per kernel, "KIND\tSHARE\tIDENT\tNAME" */
	struct dag_node *pn = mv->profile;
	json_t *sum = pn->result ? json_incref(json_object_get(pn->result, "summary"))
				 : dag_manifest_field(pn->manifest, pn->manifest_len, "summary");
	if (!json_is_string(sum)) {
		kopt_warn("the cached result of profile %s has no kernel summary; no kernel is optimized", pn->path);
		json_decref(sum);
		return 0;
	}
	mv->summary = xstrdup(json_string_value(sum));
	json_decref(sum);
	const struct kopt_agents *ag = mv->model->spec->agents;
	size_t nrows = 0;
	for (const char *c = mv->summary; *c; c++)
		nrows += *c == '\n';
	struct hot *hot = xcalloc(nrows + 1, sizeof *hot);
	size_t nhot = 0;
	double thresh = ag->hot;
	for (char *line = mv->summary, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *f[4];
		int nf = 0;
		for (char *p = line; nf < 4; nf++) {
			f[nf] = p;
			char *t = nf < 3 ? strchr(p, '\t') : NULL;
			if (nf < 3 && !t)
				break;
			if (t) {
				*t = '\0';
				p = t + 1;
			}
		}
		kopt_hash ident;
		if (nf == 4 && strcmp(f[0], "cudnn") == 0) {
			mv->cudnn_share = strtod(f[1], NULL);
			continue;
		}
		if (nf == 4 && strcmp(f[0], "eager") == 0) {
			mv->eager_known = true;
			mv->eager_ratio = strcmp(f[1], "-") == 0 ? NAN : strtod(f[1], NULL);
			mv->eager_ops = f[3];
			continue;
		}
		if (nf < 4 || strcmp(f[0], "triton") != 0 || hash_parse(f[2], &ident) < 0)
			continue;
		double share = strtod(f[1], NULL);
		if (share < thresh)
			continue;
		hot[nhot].share = share;
		hot[nhot].name = f[3];
		hot[nhot].ident = ident;
		nhot++;
	}
	qsort(hot, nhot, sizeof *hot, cmp_hot);
	size_t maxk = ag->max_kernels >= 0 ? (size_t)ag->max_kernels : 0;
	if (nhot > maxk)
		nhot = maxk;
	int budget = ag->budget;
	if (budget < 0)
		budget = 0;
	mv->kernels = xcalloc(nhot + 1, sizeof *mv->kernels);
	size_t added = 0, first = d->nnodes;
	struct dag_node *stitch = mv->model->stitch;
	for (size_t h = 0; h < nhot; h++) {
		struct dag_kernel *k = &mv->kernels[mv->nkernels++];
		k->mv = mv;
		k->name = hot[h].name;
		k->ident = hot[h].ident;
		k->n = budget;
		k->propose = xcalloc((size_t)budget + 1, sizeof *k->propose);
		k->verify = xcalloc((size_t)budget + 1, sizeof *k->verify);
		for (int i = 0; i < budget; i++) {
			struct dag_node *p = new_node(d, DAG_PROPOSE, cand_path(mv->capture->path, k->name, i));
			p->model = mv->model;
			p->mv = mv;
			p->kernel = k;
			p->cand = i;
			add_dep(p, mv->profile);
			/* the previous candidate: proposed after its verdict, keyed on
			 * its verify's key; a failed verify stops the chain unless the
			 * agent does not read verdicts */
			if (i > 0)
				dag_add_dep(p, k->verify[i - 1],
					    DAG_EDGE_ORDER | (agent_needs_feedback(ag, i) ? 0 : DAG_EDGE_SOFT));
			struct dag_node *v = new_node_at(d, DAG_VERIFY, p->path);
			v->model = mv->model;
			v->mv = mv;
			v->kernel = k;
			v->cand = i;
			v->device = mv->model->spec->device;
			v->affinity = mv->affinity;
			add_dep(v, p);
			add_dep(v, mv->capture);
			/* a failed verify fails its candidate, not the model: the
			 * stitch goes on without it (and it runs again next time) */
			dag_add_dep(stitch, v, DAG_EDGE_SOFT);
			k->propose[i] = p;
			k->verify[i] = v;
			added += 2;
		}
	}
	free(hot);
	for (size_t i = first; i < d->nnodes; i++)
		announce(d, d->all[i]);
	return added;
}

/* a variant of the agents' own, after the declared ones and any other */
static size_t add_auto(struct dag *d, struct dag_model *dm, const struct kopt_variant *v)
{
	struct kopt_variant *av = &dm->auto_variants[dm->nmv - dm->spec->nvariants];
	*av = *v;
	size_t first_node = d->nnodes;
	add_mv(d, dm, dm->nmv, av);
	dm->nmv++;
	for (size_t i = first_node; i < d->nnodes; i++)
		announce(d, d->all[i]);
	return d->nnodes - first_node;
}

static bool declares(const struct kopt_model *m, const char *name)
{
	for (size_t v = 0; v < m->nvariants; v++)
		if (strcmp(m->variants[v].name, name) == 0)
			return true;
	return false;
}

size_t dag_expand_space(struct dag *d, struct dag_model *dm)
{
	const struct kopt_model *m = dm->spec;
	size_t n = m->nvariants;
	if (dm->space_done || dm->nmv != n || n == 0 || dm->file_error)
		return 0;
	for (size_t v = 0; v < n; v++)
		if (!(dm->mvs[v].profile->flags & DAG_DONE))
			return 0; /* not all known yet, or one failed: no choice */
	dm->space_done = true;
	if ((m->agents && !m->agents->auto_variants) || m->kind != KOPT_MODEL_TORCH)
		return 0;
	double gamma = m->gates->gamma;
	json_t *ops = NULL;
	double cudnn = 0;
	bool known = true;
	for (size_t v = 0; v < n; v++)
		known &= dm->mvs[v].eager_known;
	if (known) { /* the summaries say it all */
		double *ratio = xcalloc(n, sizeof *ratio);
		for (size_t v = 0; v < n; v++)
			ratio[v] = dm->mvs[v].eager_ratio;
		ops = rule_space_pick_lines(m, ratio, n, dm->mvs[0].eager_ops, gamma);
		free(ratio);
		cudnn = dm->mvs[0].cudnn_share;
	} else { /* profiles cached before the summary had the lines */
		const json_t **meas = xcalloc(n, sizeof *meas);
		meas[0] = json_object_get(dag_result(d, dm->mvs[0].profile), "meas");
		cudnn = rule_cudnn_share(meas[0]);
		/* the first profile alone settles most models: parse the rest only then */
		json_t *first = rule_space_pick(m, meas, 1, gamma);
		if (first) {
			for (size_t v = 1; v < n; v++)
				meas[v] = json_object_get(dag_result(d, dm->mvs[v].profile), "meas");
			ops = n > 1 ? rule_space_pick(m, meas, n, gamma) : json_incref(first);
			json_decref(first);
		}
		free(meas);
	}
	size_t added = 0;
	if (ops && !declares(m, RULE_AUTO_VARIANT)) {
		/* the first variant's compile options, those ops kept out of Inductor */
		struct kopt_variant v = m->variants[0];
		v.name = dag_strdup(d, RULE_AUTO_VARIANT);
		v.naten_fallback = json_array_size(ops);
		v.aten_fallback = xcalloc(v.naten_fallback, sizeof *v.aten_fallback);
		for (size_t i = 0; i < v.naten_fallback; i++)
			v.aten_fallback[i] = dag_strdup(d, json_string_value(json_array_get(ops, i)));
		added += add_auto(d, dm, &v);
	}
	json_decref(ops);
	bool benchmarked = false;
	for (size_t v = 0; v < n; v++)
		benchmarked |= m->variants[v].cudnn_benchmark;
	if (cudnn >= RULE_CUDNN_SHARE && !benchmarked && !declares(m, RULE_CUDNN_VARIANT)) {
		/* the first variant's, cuDNN's algorithms benchmarked at each shape */
		struct kopt_variant v = m->variants[0];
		v.name = dag_strdup(d, RULE_CUDNN_VARIANT);
		v.cudnn_benchmark = true;
		added += add_auto(d, dm, &v);
	}
	return added;
}

void dag_kernel_info(struct dag *d, struct dag_kernel *k)
{
	if (k->loaded)
		return;
	k->loaded = true;
	json_t *res = dag_result(d, k->mv->profile);
	json_t *inv = json_object_get(json_object_get(res, "stable"), "kernels");
	json_t *rows = json_object_get(json_object_get(res, "meas"), "rows");
	size_t i;
	json_t *e;
	json_array_foreach(inv, i, e) {
		const char *nm = json_string_value(json_object_get(e, "name"));
		if (nm && strcmp(nm, k->name) == 0) {
			k->heuristic = json_string_value(json_object_get(e, "heuristic"));
			k->source_hash = json_string_value(json_object_get(e, "source_hash"));
			k->config = json_object_get(e, "config");
			break;
		}
	}
	json_array_foreach(rows, i, e) {
		const char *nm = json_string_value(json_object_get(e, "name"));
		if (nm && strcmp(nm, k->name) == 0) {
			k->row = e;
			break;
		}
	}
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
			/* a bare path: prefer the step that decides (verify over propose) */
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
