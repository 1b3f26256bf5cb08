/*
 * rules/chains.c: the hot kernels' chains of candidates (a screen, then
 * proposals and verifies, one after the other), added to the graph once a
 * model's variants are all profiled (rules/profile.c's expand hook) and,
 * for a shape of a model, once the earlier shapes have theirs (a kernel an
 * earlier shape's chain searches gets none: rules/shapes.c), and
 * the variants that get none: those that another variant already beats by
 * gamma with their hot kernels at their bounds (agents/roof.c), where no
 * candidate can make them the race's winner.
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../agents/agent.h"
#include "../agents/roof.h"
#include "rules.h"
#include "plan.h"
#include "summary.h"
#include "groups.h"
#include "chains.h"
#include "shapes.h"
#include "screen.h"
#include "space.h"
#include "common.h"

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

struct hot {
	double share, frac;
	const char *name;
	kopt_hash ident;
	size_t idx;         /* in the summary; the group's members are those whose rep is idx */
};

static int cmp_hot(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return strcmp(x->name, y->name);
}

void rule_read_summary(struct rule_mv *mv)
{
	if (mv->summary_read)
		return;
	mv->summary_read = true;
	struct dag_node *pn = mv->profile;
	json_t *sum = pn->result ? json_incref(json_object_get(pn->result, "summary"))
				 : dag_manifest_field(pn->manifest, pn->manifest_len, "summary");
	if (json_is_string(sum)) {
		rule_summary_read(json_string_value(sum), &mv->summary);
	} else {
		kopt_warn("the cached result of profile %s has no kernel summary; no kernel is optimized", pn->path);
		rule_summary_read("", &mv->summary);
	}
	json_decref(sum);
}

/* a group's bound over its time (what its members could win, at their
 * bounds, over the group's share; a member whose bound is unknown counted
 * as if it could vanish); a kernel alone keeps its own */
static double group_frac(const struct rule_summary *s, const size_t *rep, size_t g, double share)
{
	size_t n = 0;
	double room = 0;
	for (size_t i = 0; i < s->nkernels; i++) {
		if (rep[i] != g)
			continue;
		double f = s->kernels[i].frac, sh = isnan(s->kernels[i].share) ? 0 : s->kernels[i].share;
		room += sh * (1 - (isnan(f) || f > AGENT_OVERSTATED ? 0 : f > 1 ? 1 : f));
		n++;
	}
	return n < 2 || !(share > 0) ? s->kernels[g].frac : 1 - room / share;
}

/* the kernels a variant's chains work on (agents hot and max_kernels,
 * most time first): each group of one class once (rules/groups.c), by its
 * representative with the group's share; *out, which the caller frees, and
 * *rep_out, each summary kernel's representative; returns their count */
static size_t hot_kernels(const struct rule_mv *mv, struct hot **out, size_t **rep_out)
{
	const struct kopt_agents *ag = mv->model->spec->agents;
	size_t nk = mv->summary.nkernels;
	struct hot *hot = xcalloc(nk + 1, sizeof *hot);
	size_t *rep = xcalloc(nk + 1, sizeof *rep);
	double *gshare = xcalloc(nk + 1, sizeof *gshare);
	rule_kernel_groups(&mv->summary, rep, gshare);
	size_t nhot = 0;
	for (size_t i = 0; i < nk; i++) {
		const struct rule_summary_kernel *k = &mv->summary.kernels[i];
		if (strcmp(k->kind, "triton") != 0 || rep[i] != i || gshare[i] < ag->hot)
			continue;
		hot[nhot].share = gshare[i];
		hot[nhot].frac = group_frac(&mv->summary, rep, i, gshare[i]);
		hot[nhot].name = k->name;
		hot[nhot].ident = k->ident;
		hot[nhot].idx = i;
		nhot++;
	}
	free(gshare);
	qsort(hot, nhot, sizeof *hot, cmp_hot);
	size_t maxk = ag->max_kernels >= 0 ? (size_t)ag->max_kernels : 0;
	*out = hot;
	*rep_out = rep;
	return nhot > maxk ? maxk : nhot;
}

/*
 * A variant's times and what each of its hot kernels could win, at its
 * bound (agents/roof.c; a kernel whose bound is unknown counted as if it
 * could vanish): room[h] for hot[h], ns per call, and its bound over its
 * time in frac[h] (NAN unknown). Returns the model time, NAN where the
 * profile lacks the times. Profiles cached before the summary had the
 * times are read whole.
 */
static double variant_room(struct dag *d, struct rule_mv *mv, const struct hot *hot, size_t nhot, double *room,
			   double *frac)
{
	double t = mv->summary.model_ns, dev = mv->summary.device_ns;
	const json_t *meas = NULL;
	double peak = NAN;
	if (isnan(t) || isnan(dev)) {
		meas = rule_profile_meas(d, mv);
		t = rule_num(meas, "model_ns_per_call");
		dev = rule_kernels_ns(meas);
		peak = rule_num(meas, "peak_copy_gbps");
	}
	if (!(t > 0) || !(dev > 0))
		return NAN;
	for (size_t h = 0; h < nhot; h++) {
		double f = hot[h].frac;
		if (isnan(f) && meas) { /* an older summary: the row's */
			size_t i;
			json_t *row;
			json_array_foreach(json_object_get(meas, "rows"), i, row)
				if (strcmp(json_string_value(json_object_get(row, "name")) ?: "", hot[h].name) == 0)
					f = rule_row_frac(row, peak);
		}
		if (f > AGENT_OVERSTATED)
			f = NAN; /* its bytes overstate its traffic: its bound is not known */
		room[h] = hot[h].share * dev * (1 - (isnan(f) ? 0 : f > 1 ? 1 : f));
		frac[h] = f;
	}
	return t;
}

/* what the chains of a variant depend on, worked out once: its hot
 * kernels, what each could win at its bound and its bound over its time,
 * its model time and its time at best (the model time less all of that;
 * NAN unknown) */
struct sizing {
	struct hot *hot;
	size_t *rep;        /* each summary kernel's group representative */
	size_t nhot;
	double *room, *frac;
	double t, floor;
};

static void size_variant(struct dag *d, struct rule_mv *mv, struct sizing *z)
{
	z->nhot = hot_kernels(mv, &z->hot, &z->rep);
	z->room = xcalloc(2 * z->nhot + 1, sizeof *z->room);
	z->frac = z->room + z->nhot;
	z->t = z->floor = variant_room(d, mv, z->hot, z->nhot, z->room, z->frac);
	for (size_t h = 0; h < z->nhot; h++)
		z->floor -= z->room[h];
}

/* adds the chains of a finished profile's hot kernels (z: its sizing) */
static void expand_chains(struct dag *d, struct rule_mv *mv, const struct sizing *z)
{
	if (!gate_baseline_usable(mv->summary.baseline))
		return; /* the baseline does not compute the model: nothing to compare with */
	const struct kopt_agents *ag = mv->model->spec->agents;
	const struct hot *hot = z->hot;
	size_t nhot = z->nhot;
	const double *room = z->room, *frac = z->frac;
	double t = z->t, gamma = mv->model->spec->gates->gamma;
	int budget = ag->budget;
	if (budget < 0)
		budget = 0;
	mv->kernels = xcalloc(nhot + 1, sizeof *mv->kernels);
	struct dag_node *stitch = mv->model->stitch;
	for (size_t h = 0; h < nhot; h++) {
		struct rule_kernel *k = &mv->kernels[mv->nkernels++];
		k->mv = mv;
		k->name = hot[h].name;
		k->ident = hot[h].ident;
		k->share = hot[h].share;
		k->members = xcalloc(mv->summary.nkernels + 1, sizeof *k->members);
		for (size_t i = 0; i < mv->summary.nkernels; i++)
			if (z->rep[i] == hot[h].idx && i != hot[h].idx)
				k->members[k->nmembers++] = mv->summary.kernels[i].name;
		k->n = budget;
		/* a candidate passes the performance gate on the whole model: a
		 * kernel that cannot make it gamma faster even at its bound gets
		 * none (one at its bound is the analyst's to leave alone, with
		 * its own reason) */
		if (t > 0 && !isnan(frac[h]) && frac[h] < AGENT_LEAVE_ALONE && t / (t - room[h]) < gamma) {
			char *why = xasprintf("left alone: even at its bound it would make the model at most %.1f%% faster "
					      "(%.1f us of %.1f us per call), under gamma %.2f", (t / (t - room[h]) - 1) * 100,
					      room[h] / 1e3, t / 1e3, gamma);
			k->left = dag_strdup(d, why);
			free(why);
			k->n = 0;
		}
		/* an earlier shape's chain searches its class: its winner is
		 * this kernel's, checked in this shape's stitch */
		if (k->n > 0 && (k->via = rule_shape_via(d, k))) {
			k->n = 0;
			for (int i = 0; i < k->via->n; i++)
				dag_add_dep(stitch, k->via->cands[i].verify, DAG_EDGE_SOFT);
		}
		k->cands = xcalloc((size_t)k->n + 1, sizeof *k->cands);
		struct dag_node *screen = rule_screen_add(d, k);
		for (int i = 0; i < k->n; i++) {
			struct rule_cand *c = &k->cands[i];
			c->k = k;
			c->index = i;
			char *path = cand_path(mv->capture->path, k->name, i);
			struct dag_node *p = dag_add(d, RULE_PROPOSE, path, c);
			free(path);
			dag_add_dep(p, mv->profile, 0);
			/* its configs first; a failed screen leaves the plan alone */
			if (i == 0 && screen)
				dag_add_dep(p, screen, DAG_EDGE_SOFT);
			/* the previous candidate: proposed after its verdict, keyed on
			 * its verify's key; a failed verify stops the chain unless the
			 * agent does not read verdicts */
			if (i > 0)
				dag_add_dep(p, k->cands[i - 1].verify,
					    DAG_EDGE_ORDER | (agent_needs_feedback(ag, i) ? 0 : DAG_EDGE_SOFT));
			struct dag_node *v = dag_add_at(d, RULE_VERIFY, p->path, c);
			v->affinity = mv->affinity;
			dag_add_dep(v, p, 0);
			dag_add_dep(v, mv->capture, 0);
			/* a failed verify fails its candidate, not the model: the
			 * stitch goes on without it (and it runs again next time) */
			dag_add_dep(stitch, v, DAG_EDGE_SOFT);
			c->propose = p;
			c->verify = v;
		}
	}
}

/*
 * The chains of a model's variants, once every variant is known and
 * profiled (or failed): a variant that another one already beats by gamma
 * even with its hot kernels at their bounds gets none, since no candidate
 * of its kernels can make it the race's winner (mv->pruned says why, and
 * the stitch's report with it). The chains wait for the last of the
 * variants' profiles to settle, which the scheduler runs first anyway
 * (they reveal the graph).
 */
void rule_expand_chains(struct dag *d, struct rule_model *dm)
{
	if (dm->chains_done || !rule_shapes_ready(d, dm))
		return; /* done; or an earlier shape's chains, which may search for this one, first */
	bool declared_failed = false;
	for (size_t v = 0; v < dm->nmv; v++) {
		unsigned f = dm->mvs[v].profile->flags;
		if (!(f & (DAG_DONE | DAG_FAILED)))
			return; /* not all known yet */
		declared_failed |= v < dm->spec->nvariants && (f & DAG_FAILED);
	}
	if (!dm->space_done && !declared_failed && !dm->file_error)
		return; /* the agents' own variants are still to come */
	dm->chains_done = true;
	struct sizing *z = xcalloc(dm->nmv + 1, sizeof *z);
	double best = INFINITY;
	const struct rule_mv *winner = NULL;
	for (size_t v = 0; v < dm->nmv; v++) {
		struct rule_mv *mv = &dm->mvs[v];
		if (!(mv->profile->flags & DAG_DONE))
			continue;
		size_variant(d, mv, &z[v]);
		if (gate_baseline_usable(mv->summary.baseline) && z[v].t < best) {
			best = z[v].t;
			winner = mv;
		}
	}
	double gamma = dm->spec->gates->gamma;
	for (size_t v = 0; v < dm->nmv; v++) {
		struct rule_mv *mv = &dm->mvs[v];
		if (!(mv->profile->flags & DAG_DONE))
			continue;
		if (rule_variant_graphs(mv->variant)) {
			mv->pruned = "no candidates: its kernels run as CUDA graphs, replayed as captured, which a "
				     "kernel candidate does not change";
		} else if (winner && mv != winner && z[v].floor > gamma * best) {
			char *why = xasprintf("no candidates: with its hot kernels at their bounds it would take %.1f us per "
					      "call, and %s takes %.1f us (over gamma %.2f)", z[v].floor / 1e3,
					      winner->variant->name, best / 1e3, gamma);
			mv->pruned = dag_strdup(d, why);
			free(why);
		} else {
			expand_chains(d, mv, &z[v]); /* before the users: stitch gains its verify inputs */
		}
		free(z[v].room);
		free(z[v].hot);
		free(z[v].rep);
	}
	free(z);
	rule_shapes_next(d, dm); /* the later shapes that waited for these chains */
}

