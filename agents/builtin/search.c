/*
 * agents/builtin/search.c: the built-in agents, the default: offline and
 * deterministic for a seed.
 *
 *   analyst   reads the kernel's profile row: a kernel already at 97% or
 *             more of its bound is left alone (no candidates, and the
 *             reason says so); otherwise a one-line diagnosis that names
 *             the bound and what binds, memory or compute (agents/roof.c).
 *             Without FLOPs or a measured FP32 peak the bound is the copy
 *             bandwidth alone, from the row's frac_peak.
 *   planner   ranks the strategies for this kind of kernel: a prior order
 *             from what pays on Inductor's kernels, re-ranked by the
 *             long-term memory (agents/memory.c) for kernels of the same
 *             feature class. It runs once per kernel, for candidate 0; the
 *             plan travels in candidate 0 and later candidates read it, so a
 *             memory that grows later does not redo cached proposals.
 *   coder     turns a strategy into a candidate: a launch-config edit on the
 *             keys the kernel has (XBLOCK, YBLOCK, R0_BLOCK, num_warps,
 *             num_stages), or a source edit: eviction hints, or a looped
 *             reduction that reads its row twice made persistent (the row
 *             read once, kept in registers; persist.c).
 *   tuner     first, where the kernel was screened (rules/screen.c): the
 *             screen's best launch configs, fastest first, each timed
 *             alone on the kernel's real arguments, each with the source
 *             knobs screened with it (runtime/python/kopt/knobs.py: an
 *             edit named "evict0=first+rstages=2", its text from the
 *             screen; the candidate is named "screen:evict+rstages", so
 *             memory and the report say which knobs won); candidate 0
 *             carries them, and the launch configs the screen found no
 *             faster than the kernel's own alone, which no strategy
 *             proposes again. After the plan: coordinate descent around the best
 *             passing candidate (each parameter x2 and /2; on its source
 *             where that is an edit), then, where the kernel was not
 *             screened, seeded random jumps.
 *   debugger  after a candidate that did not build (too many resources, a
 *             bad block shape): the same change, halved, once; otherwise
 *             the failure is recorded and the search moves on.
 *
 * A Helion kernel (heuristic "helion") is searched over its helion.Config
 * instead (helion.c).
 *
 * The analyst and the planner are in plan.c, the configs and the moves on
 * them in launch.c, the screen's configs in screened.c; this file has the
 * coder, the tuner and the debugger, and the order of their proposals.
 *
 * A proposal depends on: the kernel, the plan and the screen's configs
 * (candidate 0's), and in the tuner phase the best passing candidate so
 * far and the set tried.
 * agent_builtin_digest() prints exactly that, for the engine's key.
 */
#include <config.h>

#include "../builtin.h"
#include "helion.h"
#include "launch.h"
#include "persist.h"
#include "screened.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"

static bool is_helion(const struct agent_kernel *k)
{
	return k->heuristic && strcmp(k->heuristic, "helion") == 0;
}

/* what the screen found no faster alone (rules/screen.c): from the
 * request for candidate 0 (own), from candidate 0 afterwards, which
 * carries it under key; NULL where the kernel was not screened */
static const json_t *screen_carried(const struct agent_request *req, const json_t *own, const char *key)
{
	if (req->index == 0)
		return own;
	return req->ntraj ? json_object_get(req->traj[0].candidate, key) : NULL;
}

/* the launch configs alone */
static const json_t *screen_slower(const struct agent_request *req)
{
	return screen_carried(req, req->screen_slower, "screen_slower");
}

/* the configs at which the persistent transform alone was (slower_persist) */
static const json_t *screen_slower_persist(const struct agent_request *req)
{
	return screen_carried(req, req->screen_slower_persist, "screen_slower_persist");
}

/* whether the kernel was screened: candidate 0 carries the screen's best
 * configs or its slower ones */
static bool screened(const struct agent_request *req)
{
	return json_is_array(screen_slower(req)) ||
	       (req->index > 0 && req->ntraj && json_object_get(req->traj[0].candidate, "screen"));
}

/* whether cfg is one of configs (a screen's list; NULL: none) */
static bool listed(const json_t *configs, const json_t *cfg)
{
	size_t j;
	json_t *sc;
	json_array_foreach(configs, j, sc)
		if (launch_same(sc, cfg))
			return true;
	return false;
}

/* a config proposed already, the kernel's own, or one the screen timed
 * alone and found no faster: a kernel no faster alone cannot make the
 * model gamma faster, and the gates would spend a model's verify on it */
static int tried(const struct agent_request *req, const json_t *cfg)
{
	if (launch_same(cfg, req->kernel->config) || listed(screen_slower(req), cfg))
		return 1;
	for (size_t i = 0; i < req->ntraj; i++) {
		const json_t *c = json_object_get(req->traj[i].candidate, "config");
		const json_t *src = json_object_get(req->traj[i].candidate, "source");
		if (c && json_is_null(src) && launch_same(c, cfg))
			return 1;
	}
	return 0;
}

/* tried(), for a candidate with a source edit: the same source and config */
static int tried_source(const struct agent_request *req, const json_t *cfg, const char *src)
{
	if (!src)
		return tried(req, cfg);
	for (size_t i = 0; i < req->ntraj; i++) {
		const json_t *c = json_object_get(req->traj[i].candidate, "config");
		const char *s = json_string_value(json_object_get(req->traj[i].candidate, "source"));
		if (c && s && strcmp(s, src) == 0 && launch_same(c, cfg))
			return 1;
	}
	return 0;
}

static const json_t *plan_of(const struct agent_request *req)
{
	return req->ntraj ? json_object_get(req->traj[0].candidate, "plan") : NULL;
}

/* best passing candidate (by kernel speedup), or -1 */
static int best_try(const struct agent_request *req)
{
	int best = -1;
	double bx = 0;
	for (size_t i = 0; i < req->ntraj; i++)
		if (req->traj[i].verdict && strcmp(req->traj[i].verdict, "pass") == 0 && req->traj[i].speedup > bx) {
			bx = req->traj[i].speedup;
			best = (int)i;
		}
	return best;
}

/* evict-first: the loads Inductor marks evict_last become evict_first */
static char *evict_edit(const char *src)
{
	if (!src || !strstr(src, "eviction_policy='evict_last'"))
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	const char *p = src, *q;
	while ((q = strstr(p, "eviction_policy='evict_last'"))) {
		strbuf_add(&sb, p, (size_t)(q - p));
		strbuf_addstr(&sb, "eviction_policy='evict_first'");
		p = q + strlen("eviction_policy='evict_last'");
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb);
}

static int build_failed(const struct agent_try *t)
{
	return t && t->gate && strcmp(t->gate, "static") == 0 && t->reason && strstr(t->reason, "does not build") &&
	       !json_object_get(t->candidate, "repair_of");
}

/* debugger: the last candidate did not build; its config, halved, once */
static json_t *repair(const struct agent_request *req)
{
	const struct agent_try *last = req->ntraj ? &req->traj[req->ntraj - 1] : NULL;
	if (!build_failed(last))
		return NULL;
	const json_t *lc = json_object_get(last->candidate, "config");
	if (!json_is_object(lc))
		return NULL;
	json_t *c = json_deep_copy(lc);
	for (size_t i = 0; i < 3; i++) {
		json_t *v = json_object_get(c, agent_launch_keys[i]);
		if (json_is_integer(v) && json_integer_value(v) > 1)
			json_object_set_new(c, agent_launch_keys[i], json_integer(json_integer_value(v) / 2));
	}
	json_object_set_new(c, "num_stages", json_integer(1));
	if (tried(req, c)) {
		json_decref(c);
		return NULL;
	}
	json_t *out = launch_candidate(c, NULL, "debugger", "repair", "repair: halved blocks, one stage", c);
	json_object_set_new(out, "repair_of", json_integer(last->index));
	return out;
}

/* whether c is the coder's candidate of strategy name */
static bool coder_made(const json_t *c, const char *name)
{
	struct agent_candidate ac;
	return agent_candidate_read(c, &ac) == 0 && ac.role && strcmp(ac.role, "coder") == 0 &&
	       strcmp(ac.name, name) == 0;
}

static int strategy_used(const struct agent_request *req, const char *name)
{
	for (size_t t = 0; t < req->ntraj; t++)
		if (coder_made(req->traj[t].candidate, name))
			return 1;
	return 0;
}

/* the next strategy of the plan not yet used that applies; best = the traj
 * index whose config a source edit rides on, or -1 */
static json_t *plan_next(const struct agent_request *req, const json_t *plan, int best)
{
	const struct agent_kernel *k = req->kernel;
	for (size_t i = 0; plan && i < json_array_size(plan); i++) {
		const struct strategy *s = launch_strategy(json_string_value(json_array_get(plan, i)));
		if (!s || strategy_used(req, s->name))
			continue;
		if (s->param[0]) {
			json_t *c = launch_apply(s, k->config);
			if (c && !tried(req, c))
				return launch_candidate(c, NULL, "coder", s->name, s->name, c);
			json_decref(c);
			continue;
		}
		if (strcmp(s->name, "persistent") == 0) {
			int rb = 0;
			char *ps = persist_edit(k->source, PERSIST_MAX_RBLOCK, &rb);
			if (!ps)
				continue;
			json_t *c = json_is_object(k->config) ? json_deep_copy(k->config) : json_object();
			json_object_set_new(c, "XBLOCK", json_integer(1));
			json_object_set_new(c, "R0_BLOCK", json_integer(rb));
			json_object_set_new(c, "num_warps", json_integer(rb >= 8192 ? 16 : rb >= 2048 ? 8 : 4));
			json_object_set_new(c, "num_stages", json_integer(1));
			/* the screen timed this edit at this config alone: no faster */
			if (listed(screen_slower_persist(req), c)) {
				free(ps);
				json_decref(c);
				continue;
			}
			/* named as the screen's persist=on (knobs.py, the same text):
			 * a win is a skill, and the deployment checks its text */
			json_t *out = launch_candidate_edit(c, ps, "persist=on", "coder", s->name, s->name, c);
			free(ps);
			return out;
		}
		char *src = evict_edit(k->source);
		if (!src)
			continue;
		/* at the best config so far, else the kernel's own: pinned, so that
		 * the gates and the deployment run the same config (unpinned, the
		 * edited kernel is autotuned again at its first launch, and under
		 * max-autotune moved by coordinate descent) */
		const json_t *bc = best >= 0 ? json_object_get(req->traj[best].candidate, "config") : NULL;
		if (!json_is_object(bc))
			bc = k->config;
		json_t *out = launch_candidate(json_is_object(bc) ? json_deep_copy(bc) : NULL, src, "coder", s->name,
					       s->name, json_is_object(bc) ? bc : NULL);
		free(src);
		return out;
	}
	return NULL;
}

/*
 * What candidate i > 0 depends on, and nothing more: the plan and the
 * candidates so far (not their verdicts); whether the last did not build
 * (the debugger); the best passing candidate only where that is used (a
 * source edit rides on its config; the tuner searches around it). So a new
 * gamma that flips no "best" reruns no proposal.
 */
/* whether the best passing candidate is a persistent edit */
static bool persistent_best(const struct agent_request *req, int best)
{
	if (best < 0)
		return false;
	struct agent_candidate c;
	return agent_candidate_read(req->traj[best].candidate, &c) == 0 && c.source &&
	       strcmp(c.name, "persistent") == 0;
}

/* tuner: coordinate descent around the best passing config, on the best's
 * source where that is an edit (a persistent kernel keeps its block: its
 * edited branch needs the whole row, and more rows per program would only
 * add registers); NULL when every move was tried */
static json_t *descent(const struct agent_request *req, int best)
{
	const struct agent_kernel *k = req->kernel;
	const json_t *base = best >= 0 ? json_object_get(req->traj[best].candidate, "config") : NULL;
	if (!json_is_object(base))
		base = k->config;
	const json_t *bsrc = best >= 0 ? json_object_get(req->traj[best].candidate, "source") : NULL;
	const char *src = json_is_string(bsrc) ? json_string_value(bsrc) : NULL;
	/* a screened knob's edit goes on with its text (the deployment names it) */
	const char *edit = src ? json_string_value(json_object_get(req->traj[best].candidate, "edit")) : NULL;
	bool persistent = persistent_best(req, best);
	static const char *const moves[] = { "x-up", "x-down", "r-up", "r-down", "y-up", "y-down", "warps-up", "warps-down", "stages-up" };
	for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
		if (persistent && moves[i][0] != 'w' && moves[i][0] != 's')
			continue;
		json_t *c = launch_apply(launch_strategy(moves[i]), base);
		if (c && !tried_source(req, c, src)) {
			char *what = xasprintf("descent %s from %s", moves[i], best >= 0 ? "the best so far" : "the baseline");
			json_t *out = launch_candidate_edit(c, src, edit, "tuner", "descent", what, c);
			free(what);
			return out;
		}
		json_decref(c);
	}
	return NULL;
}

json_t *agent_builtin_descent(const struct agent_request *req)
{
	return descent(req, best_try(req));
}

char *agent_builtin_digest(const struct agent_request *req)
{
	if (req->index == 0)
		return xstrdup("");
	if (is_helion(req->kernel))
		return helion_digest(req);
	const json_t *plan = plan_of(req);
	int best = best_try(req);
	struct strbuf sb = STRBUF_INIT;
	char *text = plan ? json_dumps(plan, JSON_COMPACT) : xstrdup("null");
	strbuf_addf(&sb, "plan=%s;tried=", text);
	free(text);
	for (size_t i = 0; i < req->ntraj; i++) {
		char *c = json_dumps(req->traj[i].candidate, JSON_COMPACT | JSON_SORT_KEYS);
		strbuf_addf(&sb, "%s%s", i ? "," : "", c ? c : "null");
		free(c);
	}
	json_t *r = repair(req);
	if (r) {
		strbuf_addstr(&sb, ";repair");
		json_decref(r);
		return strbuf_detach(&sb);
	}
	/* the screen's configs: what candidate 0 carries and what was tried */
	json_t *se;
	json_t *sc = screened_configs(req, &se);
	r = screened_next(req, sc, se, NULL);
	json_decref(sc);
	json_decref(se);
	if (r) {
		strbuf_addstr(&sb, ";screen");
		json_decref(r);
		return strbuf_detach(&sb);
	}
	json_t *next = plan_next(req, plan, -1);
	int rides = next && !json_is_null(json_object_get(next, "source")) &&
		    !coder_made(next, "persistent"); /* its config is its own */
	json_decref(next);
	if (!next || rides || persistent_best(req, best))
		strbuf_addf(&sb, ";best=%d", best >= 0 ? req->traj[best].index : -1);
	return strbuf_detach(&sb);
}

int agent_builtin_propose(const struct agent_request *req, const char *memory_path, struct agent_reply *reply)
{
	const struct agent_kernel *k = req->kernel;
	char *why = NULL;
	if (is_helion(k))
		return helion_propose(req, memory_path, reply);
	if (req->index == 0 && agent_builtin_analyze(k, &why)) {
		reply->reason = why;
		return 0;
	}
	if (req->index == 0) {
		/* plan; then the screen's fastest config, else the first strategy
		 * that applies */
		char *ranked = NULL;
		json_t *plan = agent_builtin_plan(k, memory_path, req->scope, &ranked);
		json_t *se;
		json_t *sc = screened_configs(req, &se);
		json_t *out = screened_next(req, sc, se, &reply->reason);
		if (out) {
			json_object_set(out, "screen", sc);
			if (se)
				json_object_set(out, "screen_edits", se);
		} else {
			out = plan_next(req, plan, -1);
		}
		json_decref(sc);
		json_decref(se);
		if (out && json_array_size(req->screen_slower))
			json_object_set(out, "screen_slower", (json_t *)req->screen_slower);
		if (out && json_array_size(req->screen_slower_persist))
			json_object_set(out, "screen_slower_persist", (json_t *)req->screen_slower_persist);
		if (!out) {
			size_t ns = json_array_size(req->screen_slower);
			reply->reason = ns ? xasprintf("%s; planner: the screen found none of %zu launch config%s faster than "
						       "the kernel's own alone, and no other strategy applies", why, ns,
						       kopt_plural(ns))
					   : xasprintf("%s; planner: no strategy applies to this kernel's config", why);
			free(why);
			free(ranked);
			json_decref(plan);
			return 0;
		}
		json_object_set_new(out, "plan", plan);
		json_object_set_new(out, "planning", json_string(ranked));
		json_object_set_new(out, "analysis", json_string(why));
		free(ranked);
		free(why);
		reply->candidate = out;
		return 0;
	}

	int best = best_try(req);
	if ((reply->candidate = repair(req)))
		return 0;
	json_t *se;
	json_t *sc = screened_configs(req, &se);
	reply->candidate = screened_next(req, sc, se, &reply->reason);
	json_decref(sc);
	json_decref(se);
	if (reply->candidate)
		return 0;
	/* a persistent edit that passed: its warps and stages before the rest
	 * of the plan, whose config moves run on Inductor's looped source */
	if (persistent_best(req, best) && (reply->candidate = descent(req, best)))
		return 0;
	if ((reply->candidate = plan_next(req, plan_of(req), best)))
		return 0;
	if ((reply->candidate = descent(req, best)))
		return 0;
	/* the screen searched the launch configs alone, at a fraction of a
	 * verify's cost: random jumps are left to it */
	if (screened(req)) {
		reply->reason = xstrdup("tuner: the plan and the descent are done, and the screen searched the launch "
					"configs alone: no random jumps");
		return 0;
	}
	/* tuner: seeded random jumps over the grid of the kernel's own keys */
	uint64_t st = req->cfg ? req->cfg->seed * 1000003u + (uint64_t)req->index : (uint64_t)req->index;
	for (int attempt = 0; attempt < 64 && json_is_object(k->config); attempt++) {
		json_t *c = json_deep_copy(k->config);
		for (size_t i = 0; i < AGENT_LAUNCH_NKEYS; i++) {
			json_t *v = json_object_get(c, agent_launch_keys[i]);
			if (!json_is_integer(v))
				continue;
			int x;
			if (strcmp(agent_launch_keys[i], "num_stages") == 0)
				x = 1 + (int)(kopt_splitmix64(&st) % 3);
			else if (strcmp(agent_launch_keys[i], "num_warps") == 0)
				x = 1 << (1 + (int)(kopt_splitmix64(&st) % 4));
			else {
				long cur = (long)json_integer_value(v);
				int shift = (int)(kopt_splitmix64(&st) % 5) - 2;
				if (launch_clamp(agent_launch_keys[i], shift >= 0 ? cur << shift : cur >> -shift, &x) < 0)
					x = (int)cur;
			}
			json_object_set_new(c, agent_launch_keys[i], json_integer(x));
		}
		if (!tried(req, c)) {
			reply->candidate = launch_candidate(c, NULL, "tuner", "random", "random jump", c);
			return 0;
		}
		json_decref(c);
	}
	reply->reason = xstrdup("tuner: no untried config near the best one");
	return 0;
}
