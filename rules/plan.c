/*
 * rules/plan.c: koptmake's graph (rules.h): the rule set, the first nodes
 * of a build (capture and profile per model and compile variant, stitch per
 * model, report per target) and the contexts the nodes carry. The profile
 * rule adds the rest (rules/profile.c, rules/screen.c).
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../agents/agent.h"
#include "../agents/memory.h"
#include "rules.h"
#include "plan.h"
#include "summary.h"
#include "shapes.h"
#include "propose.h"
#include "space.h"
#include "keys.h"
#include "common.h"
#include "modelcheck.h"

extern const struct rule rule_capture, rule_profile, rule_propose, rule_verify, rule_stitch,
	rule_report, rule_screen, rule_deploy;

static const struct rule *const table[RULE_NKINDS] = {
	[RULE_CAPTURE] = &rule_capture, [RULE_PROFILE] = &rule_profile,
	[RULE_PROPOSE] = &rule_propose, [RULE_VERIFY] = &rule_verify,
	[RULE_STITCH] = &rule_stitch,   [RULE_REPORT] = &rule_report,
	[RULE_SCREEN] = &rule_screen,   [RULE_DEPLOY] = &rule_deploy,
};

const struct kopt_device *rule_device(const struct dag_node *n)
{
	return rule_model_of(n)->spec->device;
}

struct rule_mv *rule_plan_variant(struct dag *d, struct rule_model *dm, const struct kopt_variant *var)
{
	struct rule_mv *mv = &dm->mvs[dm->nmv];
	mv->model = dm;
	mv->variant = var;
	mv->index = dm->nmv++;
	hash_key_init_bare(&mv->variant_key);
	rule_key_variant(&mv->variant_key, var);
	mv->variant_id = hash_bytes(mv->variant_key.ser.buf, mv->variant_key.ser.len);
	/* at a shape, every step of the variant keys on it too */
	rule_key_shape(&mv->variant_key, dm->shape);
	/* what its worker steps leave loaded: the model, compiled this way */
	kopt_hash parts[2] = { dm->file_hash, hash_bytes(mv->variant_key.ser.buf, mv->variant_key.ser.len) };
	mv->affinity = hash_bytes(parts, sizeof parts).lo | 1; /* never 0 */
	char *path = xasprintf("%s/%s", dm->name, var->name);
	mv->capture = dag_add(d, RULE_CAPTURE, path, mv);
	free(path);
	mv->capture->affinity = mv->affinity;
	mv->capture->prio = RULE_PRIO_REVEAL;
	mv->profile = dag_add_at(d, RULE_PROFILE, mv->capture->path, mv);
	mv->profile->affinity = mv->affinity;
	mv->profile->prio = RULE_PRIO_REVEAL;
	dag_add_dep(mv->profile, mv->capture, 0);
	/* a variant of the agents' own that fails to compile or profile is
	 * left out of the race with its reason (stitch.c); a declared one
	 * fails its model */
	unsigned soft = mv->index >= dm->spec->nvariants ? DAG_EDGE_SOFT : 0;
	if (soft) {
		mv->capture->flags |= DAG_OPTIONAL;
		mv->profile->flags |= DAG_OPTIONAL;
	}
	dag_add_dep(dm->stitch, mv->capture, soft);
	dag_add_dep(dm->stitch, mv->profile, soft);
	return mv;
}

void rule_plan_model(struct dag *d, struct rule_model *dm, const struct kopt_model *m, const struct kopt_shape *sh,
		     const char *name, const char *dir)
{
	struct rule_plan *pl = d->plan;
	memset(dm, 0, sizeof *dm);
	dm->spec = m;
	dm->shape = sh;
	dm->name = dag_strdup(d, name);
	dm->dir = strcmp(dir, name) == 0 ? dm->name : dag_strdup(d, dir);
	struct strbuf sb = STRBUF_INIT;
	if (!m->path || strbuf_read_file(&sb, m->path) < 0)
		dm->file_error = xasprintf("cannot read the model file '%s': %s",
					   m->path ? m->path : "(none)", strerror(errno));
	else
		dm->file_hash = hash_bytes(sb.buf, sb.len);
	strbuf_release(&sb);
	/* the gates' and agents' parts of keys, serialized once per block: a
	 * glob's models all name the same ones, and serializing them for each
	 * of 100,000 models was half the time of -n */
	hash_key_init_bare(&dm->gates_key);
	if (m->gates) {
		if (m->gates != pl->gates_of) {
			hash_key_release(&pl->gates_key);
			hash_key_init_bare(&pl->gates_key);
			rule_key_gates(&pl->gates_key, m->gates);
			pl->gates_of = m->gates;
		}
		hash_key_splice(&dm->gates_key, &pl->gates_key);
	}
	if (m->agents && m->agents != pl->agents_of) {
		free(pl->agent_fp);
		pl->agent_fp = agent_fingerprint(m->agents);
		pl->agents_of = m->agents;
	}
	dm->agent_fp = xstrdup(m->agents ? pl->agent_fp : "builtin-default;" AGENT_BUILTIN_VERSION);
	if (m->nshapes && !sh)
		return; /* a model with shapes: its shapes have the steps (rules/shapes.c) */
	dm->mvs = xcalloc(m->nvariants + RULE_MAX_AUTO, sizeof *dm->mvs); /* + the agents' own */
	dm->stitch = dag_add_at(d, RULE_STITCH, dm->name, dm);
	for (size_t v = 0; v < m->nvariants; v++)
		rule_plan_variant(d, dm, &m->variants[v]);
	/* it measures every variant against the first's baseline, on the
	 * worker that holds the first */
	dm->stitch->affinity = dm->nmv ? dm->mvs[0].affinity : 0;
}

static struct rule_model *add_model(struct dag *d, const struct kopt_model *m)
{
	struct rule_plan *pl = d->plan;
	size_t si = (size_t)(m - d->spec->models);
	if (si >= d->spec->nmodels)
		kopt_die("internal: a model that is not the spec's");
	if (pl->model_at[si])
		return &pl->models[pl->model_at[si] - 1];
	pl->model_at[si] = pl->nmodels + 1;
	struct rule_model *dm = &pl->models[pl->nmodels++];
	rule_plan_model(d, dm, m, NULL, m->name, m->name);
	if (m->nshapes)
		rule_plan_shapes(d, dm);
	return dm;
}

/* lookups by name (the lang library has its own; these keep the rules standalone) */
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

static void unknown_name(const kopt_spec *spec, const char *name)
{
	const char **names = xcalloc(spec->ntargets + spec->nmodels + 1, sizeof *names);
	size_t nn = 0;
	for (size_t j = 0; j < spec->ntargets; j++)
		names[nn++] = spec->targets[j].name;
	for (size_t j = 0; j < spec->nmodels; j++)
		names[nn++] = spec->models[j].name;
	const char *hint = kopt_suggest(name, names, nn);
	if (hint)
		kopt_error("no target or model named '%s' (did you mean '%s'?)", name, hint);
	else
		kopt_error("no target or model named '%s'", name);
	free(names);
}

/* adds p to v (n of them) unless there */
static void add_once(const void **v, size_t *n, const void *p)
{
	for (size_t j = 0; j < *n; j++)
		if (v[j] == p)
			return;
	v[(*n)++] = p;
}

/* the named targets (a name may be a model): a report per target, a stitch
 * per model; none named: the default target, else every model */
static int plan(struct dag *d, char *const *targets, int ntargets)
{
	const kopt_spec *spec = d->spec;
	struct rule_plan *pl = xcalloc(1, sizeof *pl);
	d->plan = pl;
	size_t cap = 1;
	for (size_t i = 0; i < spec->nmodels; i++)
		cap += 1 + spec->models[i].nshapes; /* a model with shapes: one more per shape */
	pl->models = xcalloc(cap, sizeof *pl->models);
	pl->model_at = xcalloc(spec->nmodels + 1, sizeof *pl->model_at);
	hash_key_init_bare(&pl->gates_key);
	if (d->cache) { /* the skills a build reads: those learned before it began */
		char *mem = rule_memory_path(d);
		pl->skills_upto = memory_length(mem);
		free(mem);
	}
	const void **want_t = xcalloc(spec->ntargets + 1, sizeof *want_t);
	const void **want_m = xcalloc(spec->nmodels + 1, sizeof *want_m);
	size_t nwant_t = 0, nwant_m = 0;
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
			add_once(want_t, &nwant_t, t);
		} else if (m) {
			add_once(want_m, &nwant_m, m);
		} else {
			unknown_name(spec, targets[i]);
			free(want_t);
			free(want_m);
			return -1;
		}
	}
	for (size_t i = 0; i < nwant_t; i++) {
		const struct kopt_target *t = want_t[i];
		struct dag_node *r = dag_add(d, RULE_REPORT, t->name, (void *)t);
		/* soft: with -k, the report lists a model that failed, and why;
		 * a model with shapes has a row per shape */
		for (size_t j = 0; j < t->nmodels; j++) {
			struct rule_model *dm = add_model(d, t->models[j]);
			for (size_t k = 0; k < (dm->nshapes ? dm->nshapes : 1); k++)
				dag_add_dep(r, dm->nshapes ? dm->shapes[k]->stitch : dm->stitch, DAG_EDGE_SOFT);
		}
	}
	for (size_t i = 0; i < nwant_m; i++)
		add_model(d, want_m[i]);
	free(want_t);
	free(want_m);
	return 0;
}

static void release(struct dag *d)
{
	struct rule_plan *pl = d->plan;
	if (!pl)
		return;
	for (size_t i = 0; i < pl->nmodels; i++) {
		struct rule_model *dm = &pl->models[i];
		for (size_t v = 0; v < dm->nmv; v++) {
			struct rule_mv *mv = &dm->mvs[v];
			for (size_t k = 0; k < mv->nkernels; k++) {
				for (int c = 0; mv->kernels[k].memos && c < mv->kernels[k].n; c++)
					rule_memo_free(mv->kernels[k].memos[c]);
				free(mv->kernels[k].memos);
				free(mv->kernels[k].cands);
				free(mv->kernels[k].members);
			}
			free(mv->kernels);
			rule_summary_release(&mv->summary);
			hash_key_release(&mv->variant_key);
		}
		free(dm->mvs);
		free(dm->shapes);
		for (size_t a = 0; a + dm->spec->nvariants < dm->nmv; a++)
			rule_variant_release(&dm->auto_variants[a]);
		hash_key_release(&dm->gates_key);
		free(dm->agent_fp);
		free(dm->file_error);
	}
	free(pl->models);
	free(pl->model_at);
	hash_key_release(&pl->gates_key);
	free(pl->agent_fp);
	free(pl->memory);
	free(pl->scope);
	memory_seen_release(&pl->seen);
	free(pl);
	d->plan = NULL;
}

double rule_row_frac(const json_t *row, double peak_gbps)
{
	/* the bound over the time where the profile has it (agents/roof.c) */
	double f = rule_num(row, "frac_bound"), gbps = rule_num(row, "achieved_gbps");
	if (isnan(f))
		f = rule_num(row, "frac_peak");
	if (isnan(f) && !isnan(gbps) && peak_gbps > 0)
		f = gbps / peak_gbps;
	return isnan(f) ? NAN : f < 0 ? 0 : f;
}

double rule_kernel_gain(struct dag *d, struct rule_kernel *k)
{
	rule_kernel_info(d, k);
	double f = rule_row_frac(k->row, rule_num(rule_profile_meas(d, k->mv), "peak_copy_gbps"));
	return k->share * (1 - (isnan(f) ? 0.5 : f > 1 ? 1 : f));
}

double rule_gain(struct dag *d, struct rule_mv *mv)
{
	if (!mv->gain_known) {
		double t = 0;
		for (size_t i = 0; i < mv->nkernels; i++)
			t += rule_kernel_gain(d, &mv->kernels[i]);
		mv->gain = -log(1 - (t < 0.999 ? t : 0.999));
		mv->gain_known = true;
	}
	return mv->gain;
}

double rule_cand_priority(struct dag *d, struct dag_node *n)
{
	struct rule_kernel *k = rule_cand_of(n)->k;
	return rule_gain(d, k->mv) + rule_kernel_gain(d, k);
}

void rule_kernel_info(struct dag *d, struct rule_kernel *k)
{
	if (k->loaded)
		return;
	k->loaded = true;
	json_t *res = dag_result(d, k->mv->profile);
	json_t *rows = json_object_get(json_object_get(res, "meas"), "rows");
	size_t i;
	json_t *e = rule_inventory_entry(res, k->name);
	if (e) {
		k->heuristic = json_string_value(json_object_get(e, "heuristic"));
		k->source_hash = json_string_value(json_object_get(e, "source_hash"));
		k->config = json_object_get(e, "config");
	}
	json_array_foreach(rows, i, e) {
		const char *nm = json_string_value(json_object_get(e, "name"));
		if (nm && strcmp(nm, k->name) == 0) {
			k->row = e;
			break;
		}
	}
}

/* the files the rules write in kopt-out (-t clean removes only those) */
static bool is_output(const char *n)
{
	static const char *const exact[] = { "profile.json", "profile.md", "substitutions.json",
					     "output_code.py", "report.md", "report.json", "speedup.svg",
					     "roofline.svg", "helion.json", "seal.json" };
	for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
		if (strcmp(n, exact[i]) == 0)
			return true;
	size_t l = strlen(n);
	if (strncmp(n, "profile-", 8) == 0 && l > 8 &&
	    (strcmp(n + l - 5, ".json") == 0 || strcmp(n + l - 3, ".md") == 0))
		return true;
	return strstr(n, ".tmp") != NULL; /* leftovers of an interrupted write */
}

int rule_tool_memory(const kopt_spec *spec, const struct engine_opts *o, char *const *args, int nargs)
{
	if (nargs > 1) {
		kopt_error("usage: koptmake -t memory [CLASS] (e.g. reduction/looped/r14/b30)");
		return 2;
	}
	char *dir = engine_cache_dir(spec, o);
	char *path = xasprintf("%s/memory.jsonl", dir);
	int r = memory_summary(path, nargs ? args[0] : NULL, stdout);
	free(path);
	free(dir);
	return r < 0 ? 1 : 0;
}

/* -t gc: the agents' long-term memory compacted */
static int gc(struct dag *d, FILE *out)
{
	char *path = rule_memory_path(d);
	size_t kept, dropped;
	int r = memory_compact(path, &kept, &dropped);
	if (r == 0)
		fprintf(out, "%s: gc: %s: %zu lesson%s kept, %zu line%s removed (repeated verdicts, torn or unreadable lines)\n",
			kopt_progname, path, kept, kopt_plural(kept), dropped, kopt_plural(dropped));
	free(path);
	return r < 0 ? -1 : 0;
}

/* -d explain's names of the ingredients the rules add to keys */
static const char *const words[] = {
	"env", "worker environment (GPU, driver, CUDA, torch, triton)", "model", "model file", "context", "agent context",
	NULL,
};

/* after a build: each report's line (rules/report.c): its models'
 * verdicts, the geomean and where the report is */
static void closing(struct dag *d, FILE *out)
{
	for (size_t i = 0; i < d->nnodes; i++) {
		struct dag_node *n = d->all[i];
		if (n->kind != RULE_REPORT || !(n->flags & DAG_DONE))
			continue;
		const char *line = json_string_value(json_object_get(json_object_get(dag_result(d, n), "meas"), "line"));
		if (line)
			fprintf(out, "%s: %s\n", kopt_progname, line);
	}
}

/* the GPUs a build runs on: the most a device of the spec has */
static int gpus(const kopt_spec *spec)
{
	int j = 0;
	for (size_t i = 0; i < spec->ndevices; i++)
		if (spec->devices[i].gpus > j)
			j = spec->devices[i].gpus;
	return j;
}

/* what no worker may see: every variable an llm() of the spec names as its
 * key_env */
static const char **secrets(const kopt_spec *spec)
{
	const char **deny = xcalloc(spec->nagents * KOPT_ROLE_COUNT + 1, sizeof *deny);
	size_t n = 0;
	for (size_t i = 0; i < spec->nagents; i++)
		for (int r = 0; r < KOPT_ROLE_COUNT; r++) {
			const struct kopt_role_cfg *rc = &spec->agents[i].roles[r];
			if (rc->backend == KOPT_BACKEND_LLM && rc->llm.key_env && *rc->llm.key_env)
				deny[n++] = rc->llm.key_env;
		}
	return deny;
}

const struct rule_set rule_pipeline = {
	.rules = table, .nrules = RULE_NKINDS,
	.plan = plan, .release = release, .is_output = is_output, .words = words, .closing = closing, .gc = gc,
	.gpus = gpus, .secrets = secrets,
	.precheck = rule_precheck,
};
