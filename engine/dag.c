/* engine/dag.c: see dag.h */
#include <config.h>

#include "dag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/rules.h"

const char *const dag_kind_names[DAG_NKINDS] = {
	"capture", "profile", "propose", "verify", "stitch", "report",
};

static struct dag_node *new_node(struct dag *d, enum dag_kind kind, char *path)
{
	struct dag_node *n = xcalloc(1, sizeof *n);
	n->kind = (uint8_t)kind;
	n->cand = -1;
	n->path = path;
	d->all = xgrow(d->all, &d->allcap, d->nnodes + 1, sizeof *d->all);
	d->all[d->nnodes++] = n;
	return n;
}

static void add_dep(struct dag_node *n, struct dag_node *dep)
{
	if (n->ndeps + 1 > n->depcap) {
		n->depcap = n->depcap ? n->depcap * 2 : 2;
		n->deps = xrealloc(n->deps, n->depcap * sizeof *n->deps);
	}
	n->deps[n->ndeps++] = dep;
	if (dep->nusers + 1 > dep->usercap) {
		dep->usercap = dep->usercap ? dep->usercap * 2 : 4;
		dep->users = xrealloc(dep->users, dep->usercap * sizeof *dep->users);
	}
	dep->users[dep->nusers++] = n;
	if (!(dep->flags & DAG_SETTLED))
		n->npending++;
}

static void announce(struct dag *d, struct dag_node *n)
{
	if (d->on_new)
		d->on_new(d->on_new_ctx, n);
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
	dm->nmv = m->nvariants;
	dm->mvs = xcalloc(m->nvariants ? m->nvariants : 1, sizeof *dm->mvs);
	dm->stitch = new_node(d, DAG_STITCH, xstrdup(m->name));
	dm->stitch->model = dm;
	for (size_t v = 0; v < m->nvariants; v++) {
		struct dag_mv *mv = &dm->mvs[v];
		mv->model = dm;
		mv->variant = &m->variants[v];
		mv->index = v;
		mv->capture = new_node(d, DAG_CAPTURE, xasprintf("%s/%s", m->name, m->variants[v].name));
		mv->capture->model = dm;
		mv->capture->mv = mv;
		mv->profile = new_node(d, DAG_PROFILE, xstrdup(mv->capture->path));
		mv->profile->model = dm;
		mv->profile->mv = mv;
		add_dep(mv->profile, mv->capture);
		add_dep(dm->stitch, mv->capture);
		add_dep(dm->stitch, mv->profile);
		d->nvariants_total++;
	}
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
	free(n->path);
	free(n->deps);
	free(n->users);
	free(n->ingredients);
	free(n->why);
	json_decref(n->result);
	free(n);
}

void dag_free(struct dag *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nnodes; i++)
		free_node(d->all[i]);
	free(d->all);
	for (size_t i = 0; i < d->nmodels; i++) {
		struct dag_model *dm = &d->models[i];
		for (size_t v = 0; v < dm->nmv; v++) {
			struct dag_mv *mv = &dm->mvs[v];
			for (size_t k = 0; k < mv->nkernels; k++) {
				free(mv->kernels[k].propose);
				free(mv->kernels[k].verify);
			}
			free(mv->kernels);
			json_decref(mv->profile_result);
		}
		free(dm->mvs);
		free(dm->file_error);
	}
	free(d->models);
	free(d->reports);
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
			  dag_kind_names[n->kind], n->path, err.text);
		json_decref(n->result);
		n->result = NULL;
	}
	return n->result;
}

struct hot {
	const json_t *row;
	double share;
	const char *name;
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
	json_t *res = dag_result(d, mv->profile);
	if (!res)
		return 0;
	mv->profile_result = json_incref(res);
	const struct kopt_agents *ag = mv->model->spec->agents;
	json_t *inv = json_object_get(json_object_get(res, "stable"), "kernels");
	json_t *rows = json_object_get(json_object_get(res, "meas"), "rows");
	size_t nrows = json_array_size(rows);
	struct hot *hot = xcalloc(nrows + 1, sizeof *hot);
	size_t nhot = 0;
	double thresh = ag ? ag->hot : 0.05;
	for (size_t i = 0; i < nrows; i++) {
		json_t *r = json_array_get(rows, i);
		const char *kind = json_string_value(json_object_get(r, "kind"));
		const char *name = json_string_value(json_object_get(r, "name"));
		double share = json_number_value(json_object_get(r, "share"));
		if (!kind || !name || strcmp(kind, "triton") != 0 || share < thresh)
			continue;
		hot[nhot].row = r;
		hot[nhot].share = share;
		hot[nhot].name = name;
		nhot++;
	}
	qsort(hot, nhot, sizeof *hot, cmp_hot);
	size_t maxk = ag && ag->max_kernels >= 0 ? (size_t)ag->max_kernels : 10;
	if (nhot > maxk)
		nhot = maxk;
	int budget = ag ? ag->budget : 16;
	if (budget < 0)
		budget = 0;
	mv->kernels = xcalloc(nhot + 1, sizeof *mv->kernels);
	size_t added = 0, first = d->nnodes;
	struct dag_node *stitch = mv->model->stitch;
	for (size_t h = 0; h < nhot; h++) {
		const json_t *entry = NULL;
		for (size_t i = 0; i < json_array_size(inv); i++) {
			json_t *e = json_array_get(inv, i);
			const char *nm = json_string_value(json_object_get(e, "name"));
			if (nm && strcmp(nm, hot[h].name) == 0) {
				entry = e;
				break;
			}
		}
		if (!entry)
			continue;
		struct dag_kernel *k = &mv->kernels[mv->nkernels++];
		k->mv = mv;
		k->name = hot[h].name;
		k->heuristic = json_string_value(json_object_get(entry, "heuristic"));
		k->source_hash = json_string_value(json_object_get(entry, "source_hash"));
		k->config = json_object_get(entry, "config");
		k->row = hot[h].row;
		char *canon = json_dumps(entry, JSON_COMPACT | JSON_SORT_KEYS);
		k->ident = hash_str(canon);
		free(canon);
		k->n = budget;
		k->propose = xcalloc((size_t)budget + 1, sizeof *k->propose);
		k->verify = xcalloc((size_t)budget + 1, sizeof *k->verify);
		for (int i = 0; i < budget; i++) {
			struct dag_node *p = new_node(d, DAG_PROPOSE,
						      xasprintf("%s/%s/c%d", mv->capture->path, k->name, i));
			p->model = mv->model;
			p->mv = mv;
			p->kernel = k;
			p->cand = i;
			add_dep(p, mv->profile);
			if (i > 0)
				add_dep(p, k->verify[i - 1]);
			struct dag_node *v = new_node(d, DAG_VERIFY, xstrdup(p->path));
			v->model = mv->model;
			v->mv = mv;
			v->kernel = k;
			v->cand = i;
			add_dep(v, p);
			add_dep(v, mv->capture);
			add_dep(stitch, v);
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

void dag_describe(const struct dag_node *n, struct strbuf *out)
{
	strbuf_addstr(out, dag_kind_names[n->kind]);
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
			if (strlen(dag_kind_names[n->kind]) == kl &&
			    strncmp(dag_kind_names[n->kind], what, kl) == 0 && strcmp(n->path, sp + 1) == 0)
				return n;
		} else if (strcmp(n->path, what) == 0) {
			/* a bare path: prefer the step that decides (verify over propose) */
			if (n->kind == DAG_PROPOSE || n->kind == DAG_CAPTURE)
				continue;
			return n;
		}
	}
	return NULL;
}

const struct kopt_device *dag_device(const struct dag_node *n)
{
	if (n->kind == DAG_REPORT || n->kind == DAG_PROPOSE || !n->model)
		return NULL;
	return n->model->spec->device;
}
