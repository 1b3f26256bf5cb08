/*
 * rules/propose.c: ask the agent (agents/agent.h) for candidate i of a hot
 * kernel. Runs in the koptmake process, after verify i-1 of the same kernel.
 *
 * Key: the kernel's inventory entry (name, kind, source hash, heuristic,
 * config), the agent fingerprint, the candidate index and the context
 * digest the agent derives from the trajectory ("" for agents that do not
 * learn from verdicts); for candidate 0 of a screened kernel, the screen's
 * stable hash too, where it found configs (candidate 0 carries them, so
 * the later ones read them in the trajectory; a screen that found none,
 * was skipped or failed leaves the key as it is without one). Not the
 * budget: candidate i has one key whatever the budget. Stable part: the
 * candidate, or {"none":true}.
 * Measurements: the reason (why none, or what a candidate rests on: a
 * screened config's time alone).
 */
#define _XOPEN_SOURCE 700
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../agents/agent.h"
#include "../agents/llm.h"
#include "plan.h"
#include "propose.h"
#include "verify.h"
#include "screen.h"
#include "keys.h"
#include "outputs.h"
#include "common.h"

json_t *rule_no_candidate(void)
{
	/* the same for every reason (verify knows it by its hash); the
	 * reason is the proposal's measurement */
	return json_pack("{s:b}", "none", 1);
}

void rule_proposal_read(struct dag *d, const struct rule_cand *c, struct rule_proposal *p)
{
	memset(p, 0, sizeof *p);
	p->reason = "";
	json_t *r = dag_result(d, c->propose);
	json_t *st = json_object_get(r, "stable");
	if (!st)
		return;
	p->done = true;
	p->json = json_object_get(st, "candidate");
	if (agent_candidate_read(p->json, &p->cand) < 0) {
		p->none = true;
		p->json = NULL;
		p->reason = json_string_value(json_object_get(json_object_get(r, "meas"), "reason"));
	}
}

/* the trajectory of candidates 0..i-1 from their proposals and verdicts */
static struct agent_try *trajectory(struct dag *d, struct rule_kernel *k, int i, size_t *n)
{
	struct agent_try *t = xcalloc((size_t)i + 1, sizeof *t);
	*n = 0;
	for (int j = 0; j < i; j++) {
		struct rule_proposal p;
		struct rule_verdict v;
		rule_proposal_read(d, &k->cands[j], &p);
		rule_verdict_read(d, &k->cands[j], &v);
		struct agent_try *e = &t[(*n)++];
		e->index = j;
		e->candidate = p.json;
		e->verdict = v.verdict ? v.verdict : "none";
		e->gate = v.gate;
		e->reason = v.reason;
		e->speedup = isnan(v.speedup) ? 0 : v.speedup;
		e->base_ns = isnan(v.base_ns) ? 0 : v.base_ns;
		e->cand_ns = isnan(v.cand_ns) ? 0 : v.cand_ns;
	}
	return t;
}

void rule_kernel_source(struct dag *d, struct rule_kernel *k, struct strbuf *out)
{
	json_t *cap = dag_result(d, k->mv->capture);
	json_t *ks = json_object_get(json_object_get(cap, "stable"), "kernels");
	size_t i;
	json_t *e;
	json_array_foreach(ks, i, e) {
		const char *nm = json_string_value(json_object_get(e, "name"));
		const char *obj = json_string_value(json_object_get(e, "source_obj"));
		kopt_hash h;
		if (nm && obj && strcmp(nm, k->name) == 0 && hash_parse(obj, &h) == 0) {
			if (cache_object_get(d->cache, h, out) < 0)
				strbuf_reset(out);
			return;
		}
	}
}

/* the long-term memory lives in the cache folder, shared by its specs */
char *rule_memory_path(struct dag *d)
{
	return xasprintf("%s/memory.jsonl", cache_path(d->cache));
}

char *rule_memory_scope(struct dag *d)
{
	char *real = realpath(d->spec->file, NULL);
	return real ? real : xstrdup(d->spec->file);
}

void rule_agent_kernel(struct dag *d, struct rule_kernel *k, struct agent_kernel *ak)
{
	rule_kernel_info(d, k);
	json_t *pm = rule_profile_meas(d, k->mv);
	double copy = rule_num(pm, "peak_copy_gbps"), peak = rule_num(pm, "peak_fp32_gflops");
	*ak = (struct agent_kernel){ .model = k->mv->model->spec->name, .name = k->name, .heuristic = k->heuristic,
				     .config = k->config, .profile_row = k->row,
				     .peak_copy_gbps = isnan(copy) ? 0 : copy, .peak_fp32_gflops = isnan(peak) ? 0 : peak };
}

static void fill_request(struct dag *d, struct dag_node *n, struct agent_kernel *ak, struct agent_request *rq)
{
	struct rule_cand *c = rule_cand_of(n);
	struct rule_kernel *k = c->k;
	const struct kopt_model *m = k->mv->model->spec;
	rule_agent_kernel(d, k, ak);
	memset(rq, 0, sizeof *rq);
	/* what an LLM's prompt tells besides: the arguments (the capture's)
	 * and the device (its worker's environment) */
	json_t *cap = json_object_get(dag_result(d, k->mv->capture), "meas");
	ak->args = json_object_get(json_object_get(cap, "args"), k->name);
	ak->env = dag_env(d, m->device);
	rq->kernel = ak;
	rq->cfg = m->agents;
	rq->index = c->index;
}

/* a proposal's context memo, to write once the proposal is done */
struct rule_memo {
	kopt_hash key;     /* the memo's key */
	kopt_hash context; /* the context's hash, its stable part */
	char *text;        /* its manifest */
};

void rule_memo_free(struct rule_memo *m)
{
	if (m)
		free(m->text);
	free(m);
}

/*
 * The context a proposal depends on, hashed. The agent derives it from the
 * trajectory (agent_context_digest), which means reading every earlier
 * proposal and verdict: too slow for a null build of 40,000 candidates. So
 * it is memoized in the cache under a key made of what determines the
 * trajectory's content: the earlier proposals' stable hashes and the earlier
 * verifies' keys (a cached result belongs to its key). A null build then
 * hashes and looks up, and reads nothing. The key only reads: where the
 * memo is missing it derives the digest and keeps it with the candidate,
 * and the proposal's done hook writes the memo, in builds only (not -n,
 * not the tools).
 */
static kopt_hash context_hash(struct dag *d, struct dag_node *n)
{
	struct rule_cand *c = rule_cand_of(n);
	struct rule_kernel *k = c->k;
	size_t cap = 4 + 2 * (size_t)c->index;
	kopt_hash *parts = xcalloc(cap, sizeof *parts);
	size_t np = 0;
	parts[np++] = hash_str("propose context v1");
	parts[np++] = k->ident;
	parts[np++] = hash_str(k->mv->model->agent_fp);
	parts[np++] = hash_bytes(&c->index, sizeof c->index);
	for (int j = 0; j < c->index; j++) {
		parts[np++] = k->cands[j].propose->out;
		struct dag_node *v = k->cands[j].verify;
		parts[np++] = (v->flags & DAG_NOKEY) || hash_is_zero(v->key) ? v->out : v->key;
	}
	kopt_hash memo = hash_bytes(parts, np * sizeof *parts);
	free(parts);
	struct cache_entry *e = cache_get(d->cache, memo);
	if (e) {
		cache_mark(d->cache, memo); /* the spec reaches it: -t gc keeps it */
		return e->stable;
	}

	struct agent_kernel ak;
	struct agent_request rq;
	fill_request(d, n, &ak, &rq);
	struct agent_try *t = trajectory(d, k, c->index, &rq.ntraj);
	struct strbuf src = STRBUF_INIT;
	rule_kernel_source(d, k, &src);
	ak.source = src.len ? src.buf : NULL;
	rq.traj = t;
	char *dig = agent_context_digest(&rq);
	kopt_hash h = hash_str(dig);
	json_t *m = json_pack("{s:s, s:s, s:s}", "kind", "context", "path", n->path, "digest", dig);
	if (!k->memos)
		k->memos = xcalloc((size_t)k->n + 1, sizeof *k->memos);
	struct rule_memo *mm = xcalloc(1, sizeof *mm);
	mm->text = json_dumps(m, JSON_COMPACT);
	mm->key = memo;
	mm->context = h;
	rule_memo_free(k->memos[c->index]);
	k->memos[c->index] = mm;
	json_decref(m);
	free(dig);
	strbuf_release(&src);
	free(t);
	return h;
}

static int propose_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)why;
	struct rule_cand *c = rule_cand_of(n);
	const struct rule_model *dm = c->k->mv->model;
	const struct kopt_agents *a = dm->spec->agents;
	hash_key_hash(k, "kernel", c->k->ident);
	hash_key_str(k, "param:agents", dm->agent_fp);
	hash_key_int(k, "param:index", c->index);
	if (c->index == 0 && rule_screen_input(c->k)) {
		rule_key_input(k, rule_screen_input(c->k));
		/* the screen's points not faster alone than gamma go nowhere */
		hash_key_double(k, "param:gamma", dm->spec->gates->gamma);
	}
	if (a && agent_needs_feedback(a, c->index))
		hash_key_hash(k, "context", context_hash(d, n));
	else
		hash_key_str(k, "context", "");
	return 0;
}

/* how far under gamma a screen's point, timed alone, may be and still go to
 * the gates: the perf gate asks gamma of the kernel inside the model, and
 * the two timings differ by about this much */
#define SCREEN_MARGIN 0.01

/* the screen's best (rule_screen_best) less the points not faster alone
 * than gamma - SCREEN_MARGIN: a point at 1.002x alone went to a verify of
 * 134 s (level 3) that the perf gate could not pass at gamma 1.03. A
 * dropped launch config alone joins *slower (rule_screen_slower's), so no
 * strategy sends it later; a dropped point with source knobs is another
 * kernel, and only goes. Either list may come back NULL (none). */
static void screen_by_gamma(json_t **best, json_t **slower, double gamma)
{
	if (!json_array_size(*best))
		return;
	json_t *kept = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(*best, i, e) {
		const json_t *sp = json_object_get(e, "speedup");
		if (!json_is_number(sp) || json_number_value(sp) >= gamma - SCREEN_MARGIN) {
			json_array_append(kept, e);
			continue;
		}
		const char *edit = json_string_value(json_object_get(e, "edit"));
		if (edit && *edit)
			continue;
		if (!*slower)
			*slower = json_array();
		json_array_append(*slower, json_object_get(e, "config"));
	}
	json_decref(*best);
	*best = json_array_size(kept) ? kept : NULL;
	if (!*best)
		json_decref(kept);
}

static int propose_start(struct rule_run *run)
{
	struct agent_kernel ak;
	struct agent_request rq;
	struct agent_reply rp;
	struct dag_node *n = run->node;
	struct rule_cand *c = rule_cand_of(n);
	fill_request(run->dag, n, &ak, &rq);
	struct strbuf src = STRBUF_INIT;
	rule_kernel_source(run->dag, c->k, &src);
	ak.source = src.len ? src.buf : NULL;
	char *memory = rule_memory_path(run->dag);
	rq.memory = memory;
	char *scope = rule_memory_scope(run->dag);
	rq.scope = scope;
	json_t *screen = rule_screen_best(run->dag, c->k);
	json_t *slower = rule_screen_slower(run->dag, c->k, "slower");
	if (c->index == 0) /* the later ones read what candidate 0 carries */
		screen_by_gamma(&screen, &slower, c->k->mv->model->spec->gates->gamma);
	rq.screen = screen;
	rq.screen_slower = slower;
	json_t *slower_persist = rule_screen_slower(run->dag, c->k, "slower_persist");
	rq.screen_slower_persist = slower_persist;
	struct agent_try *t = NULL;
	if (rq.cfg && agent_needs_feedback(rq.cfg, c->index)) {
		t = trajectory(run->dag, c->k, c->index, &rq.ntraj);
		rq.traj = t;
	}
	int r = agent_propose(&rq, &rp);
	json_decref(screen);
	json_decref(slower);
	json_decref(slower_persist);
	free(t);
	free(memory);
	free(scope);
	strbuf_release(&src);
	if (r < 0) {
		r = rule_fail(run, "agent: %s", rp.reason ? rp.reason : "failed");
		agent_reply_release(&rp);
		return r;
	}
	/* no candidate: the stable part is the same for every reason (verify
	 * knows it by its hash); the reason is kept as a measurement */
	if (rp.candidate)
		run->stable = json_pack("{s:O}", "candidate", rp.candidate);
	else
		run->stable = rule_no_candidate();
	run->meas = json_pack("{s:s}", "reason", rp.reason ? rp.reason : (rp.candidate ? "" : "no more candidates"));
	agent_reply_release(&rp);
	return RULE_DONE;
}

/* in a build, a proposal whose key derived its context: remember it */
static void propose_done(struct dag *d, struct dag_node *n)
{
	struct rule_cand *c = rule_cand_of(n);
	struct rule_memo *m = c->k->memos ? c->k->memos[c->index] : NULL;
	if (!m)
		return;
	if (cache_put(d->cache, m->key, m->context, m->text) == 0)
		cache_mark(d->cache, m->key);
	rule_memo_free(m);
	c->k->memos[c->index] = NULL;
}

const struct rule rule_propose = {
	.name = "propose", .version = 3, .worker = false, .timing = false, .secondary = true,
	.key = propose_key, .start = propose_start, .priority = rule_cand_priority, .done = propose_done,
};

void rule_llm_usage(struct dag *d, const struct rule_model *dm, struct strbuf *md)
{
	struct agent_usage u = { NULL, 0, 0 };
	for (size_t v = 0; v < dm->nmv; v++)
		for (size_t ki = 0; ki < dm->mvs[v].nkernels; ki++) {
			struct rule_kernel *k = &dm->mvs[v].kernels[ki];
			for (int i = 0; i < k->n; i++) {
				struct rule_proposal p;
				rule_proposal_read(d, &k->cands[i], &p);
				if (p.json)
					agent_usage_add(&u, p.json);
			}
		}
	struct strbuf line = STRBUF_INIT;
	agent_usage_line(&u, dm->spec->agents, &line);
	if (line.len)
		strbuf_addf(md, "\n%s", line.buf);
	strbuf_release(&line);
	agent_usage_release(&u);
}
