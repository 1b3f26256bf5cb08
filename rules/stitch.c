/*
 * rules/stitch.c: put the verified winners of a model together and check
 * the whole model (gates 3 and 4) in a worker, once per compile variant;
 * keep the best variant. Writes kopt-out/<model>/substitutions.json,
 * output_code.py and report.md, and for a Helion kernel file helion.json:
 * per @helion.kernel, the winning helion.Config and the decorator line to
 * paste (kopt.helion_config() reads it); rules/stitch_out.c writes them.
 *
 * Winners: per hot kernel, the passing candidate with the best measured
 * kernel speedup. When the stitched model fails, the winner with the
 * smallest gain is dropped and the rest tried again; with none left the
 * variant keeps its compiled baseline. The first variant's baseline time is
 * the model's baseline.
 *
 * Key: the captures' and verifies' stable hashes, the variants, seed and
 * gates. Stable part: the chosen variant, the verdict (optimized or
 * baseline), the winners' identities and the verdict counts per gate (they
 * follow from the verifies' stable parts, and the report shows them).
 * Measurements: times, speedup, per-variant attempts. report.md ends with
 * every candidate of every kernel: strategy, verdict, kernel speedup, why.
 *
 * Replies are remembered. The key follows every verify, so raising the
 * budget re-keys the stitch even where no new candidate beat the old
 * winners; measuring again would cost the GPU minutes the first stitch did
 * and could only move the choice by noise. So each worker request is hashed
 * with the captures it stands on (a "stitch-memo" entry in the action map,
 * the reply an object); a request seen before is answered from there, and
 * the rule's decisions run on the remembered numbers. What the request
 * holds (model, variant, winners' sources and configs, seed, gates) is all
 * a stitch measures, so a new winner or gate is a new request. -B measures
 * again; -t gc forgets the memos (their entries are no step's). How many
 * requests were answered so is a measurement (-t why), not in report.md: a
 * build resumed after a kill answers from the memo what the killed build
 * measured, and writes the same outputs as a build never killed.
 */
#include <config.h>

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../gates/gates.h"
#include "../engine/cache.h"
#include "../engine/engine.h"
#include "../engine/outdir.h"
#include "measured.h"
#include "rules.h"
#include "plan.h"
#include "propose.h"
#include "verify.h"
#include "space.h"
#include "proto.h"
#include "keys.h"
#include "outputs.h"
#include "common.h"
#include "stitch.h"

/* 9: the worker races each variant in a frame of its own
 * (kopt.inductor.own_frame); side by side on the model's frame, each call
 * went through the other variants' Dynamo entries' guards (level 2's 14,
 * a 150 us call: 18.1x in the race, 22.3x deployed alone) */
/* 10: each variant's calls run under its own cudnn_benchmark (a process
 * flag: a variant raced after the cudnn variant ran under its benchmarking) */
/* 11: the race's rounds, and rule_pick_variant's noise rule on them;
 * 12: CUDA graphs' large inputs copied by plain copies (kopt.graphcopy) */
#define STITCH_VERSION 12
/* the memos' own version: bump it when the worker's stitch or race changes
 * what it measures, not when the rule only writes its outputs otherwise
 * (2: own frames, as STITCH_VERSION 9; 3: each variant's own
 * cudnn_benchmark, as 10; 4: the race's rounds, as 11; 5: as 12) */
#define STITCH_MEMO_VERSION 5

struct winner {
	const char *kernel;
	const char *source_hash;
	const json_t *candidate; /* borrowed from the proposal's result */
	struct agent_candidate cand; /* read from it */
	double gain;        /* kernel speedup measured by verify */
	char cand_hex[HASH_HEX];
	const char *from;   /* a member of a kernel's group (rules/groups.c): that kernel, whose
			     * search found the change put on it; NULL: its own search's */
	bool carried;       /* from an earlier shape's search (rules/shapes.c): timed kernel by
			     * kernel in the stitch, left off where slower than the kernel it replaces */
};

/* A Helion kernel file's stitch also times, side by side with the
 * winners, the configs Helion's autotuner found in the profile: the
 * request's "helion_baselines", [{kernel, quick, full}] (configs or null);
 * NULL where the profile has none */
static json_t *helion_baselines(struct dag *d, const struct rule_mv *mv)
{
	const json_t *h = json_object_get(rule_profile_meas(d, mv), "helion");
	json_t *out = json_array(), *hk;
	size_t i;
	json_array_foreach(json_object_get(h, "kernels"), i, hk) {
		json_t *q = json_object_get(json_object_get(hk, "quick"), "config");
		json_t *f = json_object_get(json_object_get(hk, "full"), "config");
		if (json_is_string(json_object_get(hk, "kernel")) && (json_is_object(q) || json_is_object(f)))
			json_array_append_new(out, json_pack("{s:O, s:O, s:O}", "kernel", json_object_get(hk, "kernel"),
				"quick", json_is_object(q) ? q : json_null(), "full", json_is_object(f) ? f : json_null()));
	}
	if (json_array_size(out) == 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

static int stitch_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)why;
	struct rule_model *dm = rule_model_of(n);
	const struct kopt_model *m = dm->spec;
	/* A variant's verify edges are added when its profile is known, in
	 * whatever order the profiles finish (a profile found in the cache
	 * comes before one that runs): the verifies are hashed by variant, in
	 * the places verify edges hold, so that the order does not change the
	 * key. It did: a variant's rerun profile reran its model's stitch. */
	struct dag_node **ver = xcalloc((size_t)n->ndeps + 1, sizeof *ver);
	size_t nver = 0, next = 0;
	for (size_t v = 0; v < dm->nmv; v++)
		for (uint32_t i = 0; i < n->ndeps; i++)
			if (n->deps[i].node->kind == RULE_VERIFY && rule_mv_of(n->deps[i].node) == &dm->mvs[v])
				ver[nver++] = n->deps[i].node;
	for (uint32_t i = 0; i < n->ndeps; i++) {
		struct dag_node *dep = n->deps[i].node;
		if (dep->kind == RULE_PROFILE || dep->kind == RULE_STITCH)
			continue; /* an earlier shape's stitch: an order, not an input (rules/shapes.c) */
		if (dep->kind == RULE_VERIFY && rule_model_of(dep) != dm) {
			rule_key_input(k, dep); /* an earlier shape's chain, whose winner it takes */
			continue;
		}
		if (dep->kind == RULE_VERIFY && next < nver) {
			struct dag_node *vn = ver[next++];
			rule_key_input(k, vn);
			/* a failed verify's reason is in the report: a new one rewrites it */
			if (vn->flags & DAG_FAILED) {
				const struct dag_node *f = rule_failure_of(vn);
				char *name = xasprintf("failed:%s", vn->path);
				hash_key_str(k, name, f->why ? f->why : "");
				free(name);
			}
		} else if (dep->kind != RULE_VERIFY) {
			rule_key_input(k, dep);
		}
	}
	free(ver);
	for (size_t v = 0; v < dm->nmv; v++) {
		hash_key_splice(k, &dm->mvs[v].variant_key);
		/* its compiled code's check decides whether it may be chosen */
		hash_key_str(k, "baseline", gate_baseline_name(dm->mvs[v].summary.baseline));
		/* the autotuner's configs it races (a profile with helion_full
		 * finds one more) */
		json_t *hb = m->kind == KOPT_MODEL_HELION && (dm->mvs[v].profile->flags & DAG_DONE) ?
			     helion_baselines(d, &dm->mvs[v]) : NULL;
		if (hb) {
			char *js = json_dumps(hb, JSON_COMPACT | JSON_SORT_KEYS);
			hash_key_str(k, "helion_baselines", js ? js : "");
			free(js);
			json_decref(hb);
		}
	}
	hash_key_int(k, "param:seed", m->agents ? (long long)m->agents->seed : 0);
	hash_key_splice(k, &rule_model_of(n)->gates_key);
	return 0;
}

/* whether a winner's change carries to another kernel of its class: a
 * launch config, or source knobs (knobs.apply gives each kernel its own
 * text), not a source written for its kernel alone */
static bool carries(const struct agent_candidate *c)
{
	return !c->source || (c->edit && *c->edit);
}

/* w's change put on kernel name of k's capture, found for from */
static void put_on(struct rule_run *run, struct stitch_priv *p, const struct rule_kernel *k, const struct winner *w,
		   const char *name, const char *from)
{
	json_t *e = rule_inventory_entry(dag_result(run->dag, k->mv->capture), name);
	json_t *dj = json_deep_copy(w->candidate);
	json_object_set_new(dj, "source", json_null());
	json_object_set_new(dj, "from", json_string(from));
	json_array_append_new(p->derived, dj); /* kept for the stitch's lifetime */
	struct winner m = *w;
	m.kernel = name;
	m.source_hash = e ? json_string_value(json_object_get(e, "source_hash")) : NULL;
	m.candidate = dj;
	agent_candidate_read(dj, &m.cand);
	m.from = from;
	m.carried = k->via != NULL;
	p->w[p->nw++] = m;
}

/* w, k's winner, put on every other kernel of k's group: each a winner of
 * its own in the stitched model, which checks them all with the rest; and
 * where k takes an earlier shape's winner (k->via), on k itself first, all
 * of them found for that shape's kernel */
static void put_on_members(struct rule_run *run, struct stitch_priv *p, const struct rule_kernel *k,
			   const struct winner *w)
{
	if (!carries(&w->cand))
		return;
	const char *from = k->name;
	if (k->via) {
		char *f = xasprintf("%s/%s", k->via->mv->capture->path, k->via->name);
		from = dag_strdup(run->dag, f);
		free(f);
		put_on(run, p, k, w, k->name, from);
	}
	for (size_t i = 0; i < k->nmembers; i++)
		put_on(run, p, k, w, k->members[i], from);
}

static void collect(struct rule_run *run, struct rule_mv *mv, struct stitch_priv *p)
{
	size_t room = mv->nkernels + 1;
	for (size_t ki = 0; ki < mv->nkernels; ki++)
		room += mv->kernels[ki].nmembers;
	free(p->w);
	p->w = xcalloc(room, sizeof *p->w);
	p->nw = 0;
	for (size_t ki = 0; ki < mv->nkernels; ki++) {
		struct rule_kernel *k = &mv->kernels[ki];
		/* the chain searched for it: its own, or an earlier shape's */
		struct rule_kernel *c = k->via ? (struct rule_kernel *)k->via : k;
		struct winner best = { 0 };
		rule_kernel_info(run->dag, c);
		best.gain = -1;
		for (int i = 0; i < c->n; i++) {
			struct rule_verdict v;
			struct rule_proposal pr;
			rule_verdict_read(run->dag, &c->cands[i], &v);
			if (!v.pass || isnan(v.speedup) || v.speedup <= best.gain)
				continue;
			rule_proposal_read(run->dag, &c->cands[i], &pr);
			if (!pr.json)
				continue;
			best.kernel = c->name;
			best.source_hash = c->source_hash;
			best.candidate = pr.json;
			best.cand = pr.cand;
			best.gain = v.speedup;
			hash_hex(c->cands[i].propose->out, best.cand_hex);
		}
		if (best.kernel && !k->via)
			p->w[p->nw++] = best;
		if (best.kernel)
			put_on_members(run, p, k, &best);
	}
}

/* why the agents made no candidate for k, or NULL when they made one */
static const char *no_candidate_reason(struct rule_run *run, const struct rule_kernel *k)
{
	if (k->left)
		return k->left;
	const char *why = NULL;
	for (int i = 0; i < k->n; i++) {
		struct rule_proposal p;
		rule_proposal_read(run->dag, &k->cands[i], &p);
		if (!p.none)
			return NULL;
		if (!why)
			why = p.reason;
	}
	return k->n > 0 ? (why ? why : "no reason given") : NULL;
}

static void count_verdicts(struct rule_run *run, struct stitch_priv *p)
{
	p->counts = json_object();
	p->alone = json_array();
	struct rule_model *dm = rule_model_of(run->node);
	for (size_t v = 0; v < dm->nmv; v++)
		for (size_t ki = 0; ki < dm->mvs[v].nkernels; ki++) {
			struct rule_kernel *k = &dm->mvs[v].kernels[ki];
			const char *why = no_candidate_reason(run, k);
			if (why)
				json_array_append_new(p->alone, json_pack("{s:s, s:s, s:s}", "kernel", k->name,
									  "variant", dm->mvs[v].variant->name, "reason", why));
			for (int i = 0; i < k->n; i++) {
				struct rule_verdict vd;
				rule_verdict_read(run->dag, &k->cands[i], &vd);
				const char *key = vd.error ? "error" : !vd.verdict ? "none" : vd.pass ? "pass" : vd.gate ? vd.gate : "fail";
				json_object_set_new(p->counts, key,
						    json_integer(json_integer_value(json_object_get(p->counts, key)) + 1));
			}
		}
}

static int replay(struct rule_run *run, int st);

static int send_race(struct rule_run *run, struct stitch_priv *p);
static int finish(struct rule_run *run, struct stitch_priv *p);
static int after_variant(struct rule_run *run, struct stitch_priv *p);

/* the current variant is left out, for why (taken): no request, no time
 * to claim, no winners */
static int leave_out(struct rule_run *run, struct stitch_priv *p, char *why)
{
	struct vres *vr = &p->vr[p->vi];
	vr->unusable = true;
	vr->passed = false;
	vr->base_ns = vr->opt_ns = NAN;
	free(vr->reason);
	vr->reason = why;
	vr->winners = json_array();
	return after_variant(run, p);
}

static int send_current(struct rule_run *run, struct stitch_priv *p)
{
	const struct kopt_model *m = rule_model_of(run->node)->spec;
	struct rule_mv *mv = &rule_model_of(run->node)->mvs[p->vi];
	if (!(mv->profile->flags & DAG_DONE)) {
		/* an agents' variant that did not compile or profile (a soft
		 * input): left out, with the failure's reason, and out of the race */
		const struct dag_node *f = rule_failure_of(mv->profile);
		char *why = xasprintf("%s failed: %s", f->rule->name, f->why ? f->why : "no reason given");
		for (char *c = why; *c; c++)
			if (*c == '\n' || *c == '|')
				*c = ' ';
		p->vr[p->vi].failed = true;
		return leave_out(run, p, why);
	}
	if (!gate_baseline_usable(mv->summary.baseline))
		/* its compiled code does not compute the model: nothing to stitch,
		 * no time to claim (profile.c gave it no candidates either) */
		return leave_out(run, p, xstrdup(mv->summary.baseline_why ? mv->summary.baseline_why :
						 "compiled baseline not usable"));
	json_t *ws = json_array();
	for (size_t i = 0; i < p->nw; i++) {
		const struct agent_candidate *c = &p->w[i].cand;
		json_t *wj = json_pack("{s:s, s:{s:o, s:o}}", "kernel", p->w[i].kernel, "candidate",
			"source", c->source ? json_string(c->source) : json_null(),
			"config", c->config ? json_deep_copy(c->config) : json_null());
		if (p->w[i].from) { /* its group's change, on its own source (kopt.verify.stitch) */
			json_object_set_new(json_object_get(wj, "candidate"), "edit", c->edit ? json_string(c->edit) : json_null());
			json_object_set_new(wj, "from", json_string(p->w[i].from));
		}
		if (p->w[i].source_hash) /* the kernel its search verified: the worker checks it has that one */
			json_object_set_new(wj, "source_hash", json_string(p->w[i].source_hash));
		if (p->w[i].carried) /* its kernel's time against the one it replaces (kernel_ns) */
			json_object_set_new(wj, "check", json_true());
		json_array_append_new(ws, wj);
	}
	json_decref(run->request);
	run->request = json_pack("{s:s, s:o, s:o, s:I, s:o, s:o}", "op", "stitch",
				 "model", rule_model_json(rule_model_of(run->node)), "variant", rule_variant_json(mv->variant),
				 "seed", (json_int_t)(m->agents ? m->agents->seed : 0), "winners", ws,
				 "gates", rule_gates_json(m->gates));
	json_t *hb = m->kind == KOPT_MODEL_HELION ? helion_baselines(run->dag, mv) : NULL;
	if (hb)
		json_object_set_new(run->request, "helion_baselines", hb);
	p->vr[p->vi].attempts++;
	return RULE_SEND;
}

static int stitch_start(struct rule_run *run)
{
	struct stitch_priv *p = xcalloc(1, sizeof *p);
	struct rule_model *dm = rule_model_of(run->node);
	run->priv = p;
	p->derived = json_array();
	if (dm->nmv == 0)
		return rule_fail(run, "the model has no compile variant");
	p->vr = xcalloc(dm->nmv, sizeof *p->vr);
	count_verdicts(run, p);
	collect(run, &dm->mvs[0], p);
	return replay(run, send_current(run, p));
}

/* Asks for the variants' baselines side by side. Each variant's stitch
 * measures its own baseline and optimized code together, but in a request
 * of its own, and absolute times from different requests drift, so the
 * choice between variants takes its ratios from the race (DESIGN-NOTES.md,
 * "Variants are compared side by side"). */
static int send_race(struct rule_run *run, struct stitch_priv *p)
{
	const struct kopt_model *m = rule_model_of(run->node)->spec;
	struct rule_model *dm = rule_model_of(run->node);
	json_t *vars = json_array();
	for (size_t v = 0; v < dm->nmv; v++)
		if (!p->vr[v].failed) /* it would fail the race as it failed its own steps */
			json_array_append_new(vars, rule_variant_json(dm->mvs[v].variant));
	json_decref(run->request);
	run->request = json_pack("{s:s, s:o, s:o, s:I, s:o, s:i}", "op", "race", "model", rule_model_json(dm),
				 "variants", vars, "seed", (json_int_t)(m->agents ? m->agents->seed : 0),
				 "gates", rule_gates_json(m->gates), "calls", 20);
	p->racing = true;
	return RULE_SEND;
}

/* the winners that the worker left off ([{kernel, reason}]: a change put
 * on a group's member that did not fit that kernel, a winner whose kernel
 * compiled there is not the one its search verified), out of the winners
 * and into the report's kernels without candidates */
static void leave_off(struct rule_run *run, struct stitch_priv *p, const json_t *dropped)
{
	size_t i;
	json_t *e;
	json_array_foreach(dropped, i, e) {
		const char *k = json_string_value(json_object_get(e, "kernel"));
		const char *why = json_string_value(json_object_get(e, "reason"));
		for (size_t w = 0; k && w < p->nw; w++) {
			if (strcmp(p->w[w].kernel, k) != 0)
				continue;
			char *r = p->w[w].from ? xasprintf("its group's change (found for %s) does not fit it: %s",
							   p->w[w].from, why ? why : "no reason given")
					       : xasprintf("its winner is left off: %s", why ? why : "no reason given");
			json_array_append_new(p->alone, json_pack("{s:s, s:s, s:s}", "kernel", k, "variant",
				rule_model_of(run->node)->mvs[p->vi].variant->name, "reason", r));
			free(r);
			memmove(&p->w[w], &p->w[w + 1], (p->nw - w - 1) * sizeof *p->w);
			p->nw--;
			break;
		}
	}
}

/* the winners taken from an earlier shape's search whose kernels ran
 * slower here than the kernels they replace (the reply's kernel_ns: their
 * medians in the stitch's own timed calls), out of the winners and into
 * the report's kernels without candidates; returns how many */
static size_t leave_slower(struct rule_run *run, struct stitch_priv *p, const json_t *kns)
{
	size_t n = 0, out = 0;
	for (size_t w = 0; w < p->nw; w++) {
		const json_t *t = p->w[w].carried ? json_object_get(kns, p->w[w].kernel) : NULL;
		double b = rule_num(t, "base_ns"), c = rule_num(t, "cand_ns");
		if (!(b > 0 && c > b)) {
			p->w[n++] = p->w[w];
			continue;
		}
		char *r = xasprintf("the winner of %s is slower at this shape: %.3fx", p->w[w].from, b / c);
		json_array_append_new(p->alone, json_pack("{s:s, s:s, s:s}", "kernel", p->w[w].kernel, "variant",
			rule_model_of(run->node)->mvs[p->vi].variant->name, "reason", r));
		free(r);
		out++;
	}
	p->nw = n;
	return out;
}

/* the stitched model failed: the winners put on a group's members go
 * first, all of one group at once (the group whose search gained least),
 * then the winner of the smallest gain */
static void drop_worst(struct stitch_priv *p)
{
	size_t worst = SIZE_MAX;
	for (size_t i = 0; i < p->nw; i++)
		if (p->w[i].from && (worst == SIZE_MAX || p->w[i].gain < p->w[worst].gain))
			worst = i;
	if (worst != SIZE_MAX) {
		const char *from = p->w[worst].from;
		size_t n = 0;
		for (size_t i = 0; i < p->nw; i++)
			if (!p->w[i].from || strcmp(p->w[i].from, from) != 0)
				p->w[n++] = p->w[i];
		p->nw = n;
		return;
	}
	worst = 0;
	for (size_t i = 1; i < p->nw; i++)
		if (p->w[i].gain < p->w[worst].gain)
			worst = i;
	memmove(&p->w[worst], &p->w[worst + 1], (p->nw - worst - 1) * sizeof *p->w);
	p->nw--;
}

static int handle_reply(struct rule_run *run, json_t *res)
{
	struct stitch_priv *p = run->priv;
	p->measured_at = fmax(p->measured_at, rule_measured_at(res));
	if (p->racing) {
		json_t *ns = json_object_get(res, "ns");
		size_t nmv = rule_model_of(run->node)->nmv, nsent = 0;
		for (size_t v = 0; v < nmv; v++)
			nsent += !p->vr[v].failed;
		if (json_array_size(ns) == nsent) {
			json_t *rounds = json_object_get(res, "rounds");
			p->race_ns = xcalloc(nmv, sizeof *p->race_ns);
			p->race_rounds = json_array_size(rounds) == nsent ? json_array() : NULL;
			for (size_t v = 0, j = 0; v < nmv; v++) {
				json_t *t = p->vr[v].failed ? NULL : json_array_get(ns, j);
				p->race_ns[v] = json_is_number(t) ? json_number_value(t) : NAN;
				if (p->race_rounds)
					json_array_append(p->race_rounds, t ? json_array_get(rounds, j) : json_null());
				j += !p->vr[v].failed;
			}
		} else {
			/* no race (it failed in the worker, which said why): the
			 * stitches' own times decide, and the report says so */
			const char *e = json_string_value(json_object_get(res, "error"));
			p->race_error = xstrdup(e ? e : "the race reply has no time per variant");
		}
		return finish(run, p);
	}
	struct vres *vr = &p->vr[p->vi];
	leave_off(run, p, json_object_get(res, "dropped"));
	if (leave_slower(run, p, json_object_get(res, "kernel_ns")))
		return send_current(run, p); /* a shape's own kernel where another's winner is slower */
	double base = rule_num(res, "base_ns_per_call"), opt = rule_num(res, "opt_ns_per_call");
	json_t *hr = json_object_get(res, "helion_race");
	json_decref(vr->helion_race);
	vr->helion_race = json_is_object(hr) ? json_incref(hr) : NULL;
	/* the worker measures, koptmake decides: gates 2, 3 and 4 on the whole model */
	struct gate_verdict v;
	gate_decide(json_object_get(res, "numbers"), rule_model_of(run->node)->spec->gates, &v);
	if (v.host_held && v.model.pairs > 0) {
		/* the gate's samples: the candidate's host time held at the baseline's */
		base = v.model.base_median;
		opt = v.model.cand_median;
	}
	const char *verdict = v.pass && p->nw > 0 ? "pass" : "fail";
	free(vr->reason);
	const char *pruned = rule_model_of(run->node)->mvs[p->vi].pruned;
	vr->reason = p->nw > 0 ? xstrdup(v.reason)
		     : pruned ? xasprintf("no winner: the compiled baseline (%s)", pruned)
			      : xstrdup("no winner: the compiled baseline");
	if (strcmp(verdict, "pass") == 0) {
		vr->passed = true;
		vr->base_ns = base;
		vr->opt_ns = isnan(opt) ? base : opt;
		json_t *code = json_object_get(res, "output_code");
		vr->output_code = json_is_string(code) ? json_incref(code) : NULL;
	} else if (p->nw > 0) {
		drop_worst(p);
		return send_current(run, p);
	} else if (!(base > 0)) {
		/* the variant's compiled code alone, not timed: it failed a
		 * gate in this worker (a run that errs, outputs off the
		 * references), which its profile's run did not. No time to
		 * claim: the first variant's is the one all are measured by,
		 * so the stitch fails (and runs again next time); another
		 * leaves the race */
		const char *name = rule_model_of(run->node)->mvs[p->vi].variant->name;
		if (p->vi == 0)
			return rule_fail(run, "variant '%s' was not timed: its compiled code alone failed in the stitched "
					 "model (%s)", name, v.reason);
		return leave_out(run, p, xasprintf("not timed: its compiled code alone failed in the stitched model (%s)",
						   v.reason));
	} else {
		vr->passed = false;
		vr->base_ns = vr->opt_ns = base;
	}
	vr->winners = json_array();
	for (size_t i = 0; i < p->nw && vr->passed; i++) {
		json_t *wj = json_pack("{s:s, s:s, s:f, s:o, s:O}", "kernel", p->w[i].kernel,
			"candidate", p->w[i].cand_hex, "speedup", p->w[i].gain,
			"source_hash", p->w[i].source_hash ? json_string(p->w[i].source_hash) : json_null(),
			"proposal", p->w[i].candidate);
		if (p->w[i].from)
			json_object_set_new(wj, "from", json_string(p->w[i].from));
		json_array_append_new(vr->winners, wj);
	}
	return after_variant(run, p);
}

/* the next variant's stitch, else the race, else the choice */
static int after_variant(struct rule_run *run, struct stitch_priv *p)
{
	struct rule_model *dm = rule_model_of(run->node);
	if (p->vi + 1 < dm->nmv) {
		p->vi++;
		collect(run, &dm->mvs[p->vi], p);
		return send_current(run, p);
	}
	size_t usable = 0;
	for (size_t v = 0; v < dm->nmv; v++)
		usable += !p->vr[v].unusable;
	if (usable > 1 && !p->vr[0].unusable)
		return send_race(run, p);
	return finish(run, p);
}

/* the memo key of a request: the request and the captures it stands on */
static kopt_hash memo_key(struct rule_run *run, const json_t *req)
{
	struct hash_key k;
	hash_key_init(&k, "stitch-memo", STITCH_MEMO_VERSION);
	for (uint32_t i = 0; i < run->node->ndeps; i++)
		if (run->node->deps[i].node->kind == RULE_CAPTURE)
			rule_key_input(&k, run->node->deps[i].node);
	char *js = json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS);
	hash_key_str(&k, "request", js ? js : "");
	free(js);
	kopt_hash h = hash_key_final(&k);
	hash_key_release(&k);
	return h;
}

/* the remembered reply to the request with memo key h, or NULL; *secs:
 * the worker time it took */
static json_t *memo_get(struct rule_run *run, kopt_hash h, double *secs)
{
	struct cache_entry *e = cache_get(run->dag->cache, h);
	if (!e)
		return NULL;
	json_t *man = json_loadb(e->json, e->len, 0, NULL);
	*secs = rule_num(json_object_get(man, "meas"), "worker_s");
	const char *hex = json_string_value(json_object_get(json_object_get(man, "objects"), "reply"));
	kopt_hash oh;
	struct strbuf sb = STRBUF_INIT;
	json_t *rep = NULL;
	if (hex && hash_parse(hex, &oh) == 0 && cache_object_get(run->dag->cache, oh, &sb) == 0)
		rep = json_loadb(sb.buf, sb.len, 0, NULL);
	strbuf_release(&sb);
	json_decref(man);
	if (rep && !json_is_object(rep)) {
		json_decref(rep);
		rep = NULL;
	}
	return rep;
}

/* remembers a reply; a reply that says it could not measure is not kept,
 * nor one whose correctness run raised (an error is no verdict: the GPU's
 * memory run out in that worker, say), which the next stitch asks again */
static void memo_put(struct rule_run *run, kopt_hash h, const json_t *res, double secs)
{
	if (json_object_get(res, "error") ||
	    json_object_get(json_object_get(json_object_get(res, "numbers"), "correctness"), "error"))
		return;
	char *js = json_dumps(res, JSON_COMPACT | JSON_SORT_KEYS);
	kopt_hash oh;
	if (js && cache_object_put(run->dag->cache, js, strlen(js), &oh) == 0) {
		char hex[HASH_HEX];
		hash_hex(oh, hex);
		json_t *man = json_pack("{s:s, s:s, s:{}, s:{s:f}, s:{s:s}}", "kind", "stitch-memo", "path",
					run->node->path, "stable", "meas", "worker_s", secs, "objects", "reply", hex);
		char *ms = json_dumps(man, JSON_COMPACT);
		kopt_hash zero = { 0, 0 };
		if (ms)
			cache_put(run->dag->cache, h, zero, ms); /* a memo lost is a stitch measured again */
		free(ms);
		json_decref(man);
	}
	free(js);
}

/* sends the request out, or answers it from the memo and goes on */
static int replay(struct rule_run *run, int st)
{
	struct stitch_priv *p = run->priv;
	while (st == RULE_SEND) {
		kopt_hash h = memo_key(run, run->request);
		double secs = NAN;
		json_t *rep = run->dag->opts && run->dag->opts->force ? NULL : memo_get(run, h, &secs);
		if (!rep) {
			p->pending = h;
			p->t_sent = kopt_now();
			p->sent++;
			return RULE_SEND;
		}
		p->replayed++;
		p->replayed_s += isnan(secs) ? 0 : secs;
		st = handle_reply(run, rep);
		json_decref(rep);
	}
	return st;
}

static int stitch_reply(struct rule_run *run, json_t *res)
{
	struct stitch_priv *p = run->priv;
	memo_put(run, p->pending, res, kopt_now() - p->t_sent);
	return replay(run, handle_reply(run, res));
}

static void num_or_null(json_t *o, const char *k, double v)
{
	json_object_set_new(o, k, rule_num_json(v));
}

/* Puts each variant's times in the first variant's terms, the race's ratio
 * of the baselines times the variant's own stitch ratio, both measured side
 * by side (without a race, one variant, the stitch's times), and chooses */
static void choose(struct rule_run *run, struct stitch_priv *p, struct choice *ch)
{
	struct rule_model *dm = rule_model_of(run->node);
	const struct kopt_model *m = dm->spec;
	double *vb = xcalloc(dm->nmv, sizeof *vb), *vo = xcalloc(dm->nmv, sizeof *vo);
	bool *vp = xcalloc(dm->nmv, sizeof *vp);
	for (size_t v = 0; v < dm->nmv; v++) {
		struct vres *r = &p->vr[v];
		double scale = 1.0;
		if (v > 0 && p->race_ns && p->race_ns[0] > 0 && p->race_ns[v] > 0 && r->base_ns > 0)
			scale = p->vr[0].base_ns * (p->race_ns[v] / p->race_ns[0]) / r->base_ns;
		r->stitch_base_ns = r->base_ns;
		r->stitch_opt_ns = r->opt_ns;
		r->base_ns *= scale;
		r->opt_ns *= scale;
		vb[v] = r->base_ns;
		vo[v] = r->opt_ns;
		vp[v] = r->passed && json_array_size(r->winners) > 0;
	}
	ch->best = 0;
	ch->withheld = p->vr[0].unusable ? dm->mvs[0].summary.baseline : GATE_BASE_UNCHECKED;
	if (ch->withheld) {
		/* the baseline every speedup is measured against is wrong */
		ch->optimized = false;
		ch->base = ch->opt = ch->speedup = NAN;
		free(vb);
		free(vo);
		free(vp);
		return;
	}
	ch->optimized = rule_pick_variant(vb, vo, vp, p->race_rounds, dm->nmv, m->gates->gamma, &ch->best);
	struct vres *b = &p->vr[ch->best];
	ch->base = p->vr[0].base_ns;
	ch->opt = vp[ch->best] ? b->opt_ns : b->base_ns;
	ch->speedup = ch->base > 0 && ch->opt > 0 ? ch->base / ch->opt : NAN;
	free(vb);
	free(vo);
	free(vp);
}

/* the stable part (the choice, the winners, the verdict counts: decided,
 * not measured, so the report follows them) and the measurements */
static void result(struct rule_run *run, struct stitch_priv *p, const struct choice *ch)
{
	struct rule_model *dm = rule_model_of(run->node);
	json_t *ws = json_array();
	size_t i;
	json_t *w;
	json_array_foreach(p->vr[ch->best].winners, i, w)
		json_array_append_new(ws, json_pack("{s:O, s:O}", "kernel", json_object_get(w, "kernel"),
						    "candidate", json_object_get(w, "candidate")));
	const char *verdict = ch->withheld == GATE_BASE_WRONG ? "wrong-baseline" :
			      ch->withheld == GATE_BASE_ILL ? "ill-conditioned" : ch->optimized ? "optimized" : "baseline";
	run->stable = json_pack("{s:s, s:s, s:o, s:O}", "variant", dm->mvs[ch->best].variant->name, "verdict",
				verdict, "winners", ws, "verdicts", p->counts);
	run->meas = json_object();
	num_or_null(run->meas, "base_ns", ch->base);
	num_or_null(run->meas, "opt_ns", ch->optimized ? ch->opt : ch->base);
	num_or_null(run->meas, "speedup", ch->optimized ? ch->speedup : (isnan(ch->base) ? NAN : 1.0));
	if (ch->withheld)
		json_object_set_new(run->meas, "withheld", json_string(p->vr[0].reason));
	json_object_set(run->meas, "verdicts", p->counts);
	json_object_set(run->meas, "no_candidates", p->alone);
	json_t *vars = json_array();
	for (size_t v = 0; v < dm->nmv; v++) {
		json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:s}", "name", dm->mvs[v].variant->name, "verdict",
				      p->vr[v].passed ? "pass" : "fail", "reason",
				      p->vr[v].reason ? p->vr[v].reason : "", "attempts", p->vr[v].attempts,
				      "baseline", gate_baseline_name(dm->mvs[v].summary.baseline));
		char *what = rule_variant_what(dm->mvs[v].variant);
		json_object_set_new(o, "what", json_string(what));
		free(what);
		num_or_null(o, "base_ns", p->vr[v].base_ns);
		num_or_null(o, "opt_ns", p->vr[v].opt_ns);
		num_or_null(o, "stitch_base_ns", p->vr[v].stitch_base_ns);
		num_or_null(o, "stitch_opt_ns", p->vr[v].stitch_opt_ns);
		num_or_null(o, "race_ns", p->race_ns ? p->race_ns[v] : NAN);
		if (json_is_array(json_array_get(p->race_rounds, v))) /* the report chooses with them too */
			json_object_set(o, "race_rounds", json_array_get(p->race_rounds, v));
		json_object_set_new(o, "winners", p->vr[v].winners ? json_incref(p->vr[v].winners) : json_array());
		json_array_append_new(vars, o);
	}
	json_object_set_new(run->meas, "variants", vars);
	if (p->race_error)
		json_object_set_new(run->meas, "race_error", json_string(p->race_error));
	if (p->vr[ch->best].helion_race)
		json_object_set(run->meas, "helion_race", p->vr[ch->best].helion_race);
	/* replayed_s: the remembered requests' worker time, which the model's
	 * GPU-minutes go on counting (rules/report.c) */
	json_object_set_new(run->meas, "requests", json_pack("{s:i, s:i, s:f}", "sent", p->sent, "replayed",
							       p->replayed, "replayed_s", p->replayed_s));
	if (p->measured_at > 0)
		rule_measured(run, p->measured_at);
}

static int finish(struct rule_run *run, struct stitch_priv *p)
{
	struct choice ch;
	choose(run, p, &ch);
	result(run, p, &ch);
	int r = stitch_write_code(run, p, &ch);
	struct strbuf md = STRBUF_INIT;
	stitch_model_md(run, p, &ch, &md);
	char *rel = xasprintf("%s/report.md", rule_model_dir(rule_model_of(run->node)));
	if (rule_output(run, rel, md.buf, md.len) < 0)
		r = -1;
	free(rel);
	strbuf_release(&md);
	if (r < 0)
		return rule_fail(run, "cannot write the stitch outputs");
	return RULE_DONE;
}

static void stitch_release(struct rule_run *run)
{
	struct stitch_priv *p = run->priv;
	if (!p)
		return;
	if (p->vr) {
		for (size_t v = 0; v < rule_model_of(run->node)->nmv; v++) {
			json_decref(p->vr[v].output_code);
			json_decref(p->vr[v].winners);
			json_decref(p->vr[v].helion_race);
			free(p->vr[v].reason);
		}
	}
	free(p->vr);
	free(p->w);
	json_decref(p->derived);
	free(p->race_ns);
	json_decref(p->race_rounds);
	free(p->race_error);
	json_decref(p->counts);
	json_decref(p->alone);
	free(p);
	run->priv = NULL;
}

/* the best gain of the model's variants (rules.h) */
static double stitch_priority(struct dag *d, struct dag_node *n)
{
	struct rule_model *dm = rule_model_of(n);
	double best = 0;
	for (size_t v = 0; v < dm->nmv; v++)
		if (dm->mvs[v].profile->flags & DAG_DONE)
			best = fmax(best, rule_gain(d, &dm->mvs[v]));
	return best;
}

/* -t why: the verdict and variant, the numbers, each variant's attempts,
 * the winners, and how many requests the memo answered */
static void stitch_why(struct dag *d, struct dag_node *n, FILE *out)
{
	json_t *r = dag_result(d, n);
	json_t *st = json_object_get(r, "stable"), *me = json_object_get(r, "meas");
	fprintf(out, "stitch %s: %s (variant %s)\n", n->path, json_string_value(json_object_get(st, "verdict")),
		json_string_value(json_object_get(st, "variant")));
	rule_print_numbers(out, me);
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(me, "variants"), i, v)
		fprintf(out, "  variant %s: compiled baseline %s; stitch %s after %lld attempt(s): %s\n",
			json_string_value(json_object_get(v, "name")),
			json_string_value(json_object_get(v, "baseline")) ? json_string_value(json_object_get(v, "baseline")) : "unchecked",
			json_string_value(json_object_get(v, "verdict")),
			(long long)json_integer_value(json_object_get(v, "attempts")),
			json_string_value(json_object_get(v, "reason")));
	json_array_foreach(json_object_get(me, "variants"), i, v)
		if (json_string_value(json_object_get(v, "what")))
			fprintf(out, "  variant %s is %s\n", json_string_value(json_object_get(v, "name")),
				json_string_value(json_object_get(v, "what")));
	json_array_foreach(json_object_get(st, "winners"), i, v)
		fprintf(out, "  winner %s\n", json_string_value(json_object_get(v, "kernel")));
	/* kept out of report.md: a build resumed after a kill answers from the
	 * memo what the killed one measured, with the same result, and its
	 * outputs must read the same */
	json_t *rq = json_object_get(me, "requests");
	if (rq)
		fprintf(out, "  worker requests        %lld measured, %lld answered from an earlier run's "
			"(same winners, variants and gates; -B measures again)\n",
			(long long)json_integer_value(json_object_get(rq, "sent")),
			(long long)json_integer_value(json_object_get(rq, "replayed")));
}

#define STALE_MARK "> **Stale.** "

/* the model's build failed (the failed hook): its report.md from an
 * earlier build says so at its top, with why, until a build of the model
 * succeeds and writes it anew (a cache hit restores the recorded bytes) */
static void stitch_failed(struct dag *d, struct dag_node *n)
{
	const struct dag_node *f = rule_failure_of(n);
	char *rel = xasprintf("%s/report.md", rule_model_dir(rule_model_of(n)));
	char *path = xasprintf("%s/%s", d->out_dir, rel);
	struct strbuf old = STRBUF_INIT, sb = STRBUF_INIT;
	if (strbuf_read_file(&old, path) == 0 && old.len) {
		const char *body = old.buf;
		if (strncmp(body, STALE_MARK, strlen(STALE_MARK)) == 0) { /* marked before: the reason anew */
			const char *end = strstr(body, "\n\n");
			body = end ? end + 2 : body + old.len;
		}
		strbuf_addf(&sb, STALE_MARK "The last build of this model failed (%s %s: %s). What follows is an "
				 "earlier build's, of other sources or settings.\n\n",
			    f->rule->name, f->path, f->why ? f->why : "failed");
		strbuf_addstr(&sb, body);
		outdir_write(d->out_dir, rel, sb.buf, sb.len);
	}
	strbuf_release(&old);
	strbuf_release(&sb);
	free(path);
	free(rel);
}

const struct rule rule_stitch = {
	.name = "stitch", .version = STITCH_VERSION, .worker = true, .timing = true,
	.device = rule_device,
	.restore = rule_restore_outputs,
	.key = stitch_key, .start = stitch_start, .reply = stitch_reply, .release = stitch_release,
	.why = stitch_why, .priority = stitch_priority, .failed = stitch_failed, .done = stitch_seal,
};
