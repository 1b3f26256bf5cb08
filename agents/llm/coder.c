/*
 * agents/llm/coder.c: the LLM roles, and how an LLM coder shares a
 * kernel's candidates with the built-in search.
 *
 * With coder = llm(...), candidate i of a kernel comes from the first that
 * applies of:
 *   1. the round's next reply. A round asks the model once for `beam`
 *      replies (parallel calls of one request); the candidate that sent it
 *      (the round's head) takes the first usable reply and carries them all
 *      ("beam"), and the next candidates take the others in turn, leaving
 *      out a reply that repeats an earlier candidate (DESIGN-NOTES.md, "A
 *      round's replies are its head's");
 *   2. at a round's end, when none of its candidates passed and the
 *      debugger is an LLM: the repair of the first that failed gate 1, 2
 *      or 3, once per round;
 *   3. after a round that made a new best, and after each tuner step that
 *      improved on it: the built-in tuner's descent around the best, on
 *      its source (or the LLM tuner, where the spec says so);
 *   4. a new round, while the kernel's LLM budget (calls, tokens, wall
 *      time) lasts and not both of the last two rounds gave nothing that
 *      built;
 *   5. the built-in search (its plan, descent, random jumps): it fills the
 *      budget the LLM leaves, and a candidate it makes says why the model
 *      was not asked ("llm_off").
 * A round whose request fails, or whose replies hold nothing usable, gives
 * its slot to the built-in search; the candidate records the error and
 * what the calls cost.
 *
 * The prompt (agents/llm/facts.c, rendered by agents/llm/prompt.c): its
 * context is rendered once, for candidate 0, and kept in it ("context"), so
 * that every round sends the same bytes first; each round adds the search
 * so far, the planner's strategy, and on repair the candidate with its
 * gate's reason.
 *
 * A reply may carry a kernel module, a launch config or both
 * (agents/llm/trajectory.c reads it, and the rounds so far).
 *
 * The context digest (agent_llm_digest) is the whole trajectory as the
 * prompts and these choices read it: each candidate, its verdict, gate and
 * reason, and its speedup and times as the prompt rounds them.
 *
 * Usage: a candidate whose proposal called a model records "llm" (its
 * calls, tokens, wall time and usage per model; agents/llm/run.c): the
 * budget sums it over the trajectory, the model's report per LLM model
 * (agent_usage_line).
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "facts.h"
#include "run.h"
#include "trajectory.h"

#include <stdlib.h>
#include <string.h>

/* the built-in search's candidate for this slot, saying why the model made none */
static int builtin_slot(const struct agent_request *req, const struct llm_builtin *bi, const char *field,
			const char *why, struct agent_reply *reply)
{
	int rc = bi->propose(req, req->memory, reply);
	if (rc == 0 && reply->candidate)
		json_object_set_new(reply->candidate, field, json_string(why));
	else if (rc == 0 && reply->reason) {
		char *r = xasprintf("%s; %s", why, reply->reason);
		free(reply->reason);
		reply->reason = r;
	}
	return rc;
}

/* ---- the roles ---- */

/* c, candidate 0 of an LLM coder, keeps what later rounds read from it */
static void keep_for_later(const struct llm_run *run, json_t *c, const char *diagnosis, const char *context)
{
	const struct agent_request *req = run->req;
	if (!c || req->index != 0)
		return;
	json_object_set_new(c, "analysis", json_string(diagnosis));
	json_object_set_new(c, "context", json_string(context));
	if (!json_object_get(c, "plan")) {
		char *ranked = NULL;
		json_object_set_new(c, "plan", run->builtin->plan(req->kernel, req->memory, req->scope, &ranked));
		json_object_set_new(c, "planning", json_string(ranked));
		free(ranked);
	}
}

/* the planner's text for a round: an LLM's reply (one call) or the built-in plan */
static char *strategy_of(struct llm_run *run, const char *diagnosis)
{
	const struct agent_request *req = run->req;
	if (!agent_role_is_llm(req->cfg, KOPT_ROLE_PLANNER))
		return llm_builtin_strategy(run);
	struct strbuf u = STRBUF_INIT, text = STRBUF_INIT, err = STRBUF_INIT;
	strbuf_addf(&u, "Diagnosis: %s\nTried so far:\n", diagnosis);
	for (size_t i = 0; i < req->ntraj; i++) {
		char *l = llm_attempt_line(&req->traj[i], req->scope);
		strbuf_addf(&u, "%s\n", l);
		free(l);
	}
	if (!req->ntraj)
		strbuf_addstr(&u, "nothing yet\n");
	strbuf_addf(&u, "Name the one rewrite strategy to try next for kernel %s, in one sentence.", req->kernel->name);
	if (llm_run_ask(run, KOPT_ROLE_PLANNER, "You plan GPU kernel optimizations.", u.buf, 0, &text, &err) < 0) {
		strbuf_reset(&text);
		strbuf_addstr(&text, "the fastest correct rewrite you can write");
	}
	strbuf_release(&u);
	strbuf_release(&err);
	return strbuf_detach(&text);
}

/* the round's candidate: the first of its replies that is new (it keeps
 * them all), else the built-in search's, with the first reply's error */
static int take_reply(const struct agent_request *req, const struct llm_builtin *bi, const struct llm_state *st,
		      json_t *beam, struct agent_reply *reply)
{
	int rc = 0, take = -1;
	for (size_t j = 0; j < json_array_size(beam) && take < 0; j++)
		if (llm_fresh(req, json_array_get(beam, j)))
			take = (int)j;
	if (take >= 0) {
		reply->candidate = llm_from_sample(json_array_get(beam, (size_t)take), st->rounds, take,
					       (int)json_array_size(beam), "coder");
	} else {
		const char *e = NULL;
		for (size_t j = 0; j < json_array_size(beam) && !e; j++)
			e = llm_str(json_array_get(beam, j), "error");
		rc = builtin_slot(req, bi, "error", e ? e : "llm: every reply repeats an earlier candidate or the kernel", reply);
		if (reply->candidate)
			json_object_set_new(reply->candidate, "round", json_integer(st->rounds));
	}
	if (reply->candidate)
		json_object_set(reply->candidate, "beam", beam);
	return rc;
}

/* a new round: the model's replies to one request, the first usable one
 * the candidate, all of them kept in it */
static int new_round(const struct agent_request *req, const struct llm_builtin *bi, const struct llm_state *st,
		     struct agent_reply *reply)
{
	struct llm_run run;
	llm_run_init(&run, req, bi);
	struct strbuf err = STRBUF_INIT;
	const struct kopt_llm *cfg = llm_coder_cfg(req);
	if (!req->kernel->source)
		strbuf_addstr(&err, "coder: the kernel's source is not at hand");
	else
		llm_budget_check(&run.b, 0, &err);
	if (err.len) {
		int rc = builtin_slot(req, bi, "llm_off", err.buf, reply);
		strbuf_release(&err);
		llm_run_release(&run);
		return rc;
	}
	int n = cfg->beam > 0 ? cfg->beam : 1;
	if (req->cfg && req->cfg->budget > req->index && req->cfg->budget - req->index < n)
		n = req->cfg->budget - req->index;
	char *diag = llm_diagnosis_of(&run, true);
	char *context = llm_context_of(&run, diag);
	char *strategy = strategy_of(&run, diag);
	struct strbuf user = STRBUF_INIT;
	llm_round_prompt(req, context, strategy, NULL, cfg->prompt_tokens, &user);
	struct llm_request q = { 0 };
	q.system = llm_prompt_system();
	q.user = user.buf;
	q.user_stable = strlen(context);
	struct llm_reply *out = xcalloc((size_t)n, sizeof *out);
	struct strbuf *errs = xcalloc((size_t)n, sizeof *errs);
	int *rcs = xcalloc((size_t)n, sizeof *rcs);
	for (int i = 0; i < n; i++) {
		llm_reply_init(&out[i]);
		strbuf_init(&errs[i]);
	}
	int k = llm_complete_many(cfg, &q, n, &run.b, out, errs, rcs);
	int rc;
	if (k < 0) {
		/* not even one call fits what the budget has left: no round */
		rc = builtin_slot(req, bi, "llm_off", errs[0].buf, reply);
	} else {
		json_t *beam = json_array();
		for (int i = 0; i < k; i++) {
			llm_run_note(&run, cfg, &out[i]);
			json_array_append_new(beam, llm_sample_of(req, rcs[i] == 0 ? out[i].text.buf : NULL, errs[i].buf));
		}
		rc = take_reply(req, bi, st, beam, reply);
		json_decref(beam);
	}
	keep_for_later(&run, reply->candidate, diag, context);
	llm_run_stamp(&run, reply->candidate);
	for (int i = 0; i < n; i++) {
		llm_reply_release(&out[i]);
		strbuf_release(&errs[i]);
	}
	free(out);
	free(errs);
	free(rcs);
	strbuf_release(&user);
	free(strategy);
	free(context);
	free(diag);
	llm_run_release(&run);
	return rc;
}

/* the round's next reply, or NULL when the round is over */
static json_t *next_sample(const struct agent_request *req, const struct llm_state *st)
{
	if (st->head < 0 || !st->open)
		return NULL;
	json_t *beam = json_object_get(req->traj[st->head].candidate, "beam");
	for (size_t j = (size_t)(st->last_sample + 1); j < json_array_size(beam); j++)
		if (llm_fresh(req, json_array_get(beam, j)))
			return llm_from_sample(json_array_get(beam, j), st->round, (int)j, (int)json_array_size(beam), "coder");
	return NULL;
}

/* at the end of a round none of whose candidates passed: the first of its
 * replies that failed gate 1, 2 or 3 (once per round); NULL otherwise */
static const struct agent_try *round_fix(const struct agent_request *req, const struct llm_state *st)
{
	if (st->head < 0 || !st->open || !agent_role_is_llm(req->cfg, KOPT_ROLE_DEBUGGER))
		return NULL;
	const struct agent_try *fix = NULL;
	for (size_t i = (size_t)st->head; i < req->ntraj; i++) {
		const struct agent_try *t = &req->traj[i];
		if (t->verdict && strcmp(t->verdict, "pass") == 0)
			return NULL;
		if (!fix && llm_made_by_llm(t->candidate) && llm_str(t->candidate, "source") && t->gate &&
		    (!strcmp(t->gate, "static") || !strcmp(t->gate, "correctness") || !strcmp(t->gate, "fp64")))
			fix = t;
	}
	return fix;
}

/* after a round that made the best, and after a tuner step that improved it */
static bool tune_due(const struct agent_request *req, const struct llm_state *st)
{
	if (st->best < 0 || !req->ntraj)
		return false;
	const json_t *last = req->traj[req->ntraj - 1].candidate, *b = req->traj[st->best].candidate;
	if (st->head >= 0 && st->best >= st->head && json_object_get(last, "round") && llm_made_by_llm(b))
		return true;
	const char *r = llm_str(last, "role");
	return r && strcmp(r, "tuner") == 0 && st->best == (int)req->ntraj - 1;
}

/* the LLM debugger's repair of fix; round: the round it belongs to, or -1 */
static int repair(const struct agent_request *req, const struct llm_builtin *bi, const struct agent_try *fix, int round,
		  struct agent_reply *reply)
{
	struct llm_run run;
	llm_run_init(&run, req, bi);
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, user = STRBUF_INIT;
	if (llm_budget_check(&run.b, 0, &err) < 0) {
		int rc = builtin_slot(req, bi, "llm_off", err.buf, reply);
		strbuf_release(&err);
		llm_run_release(&run);
		return rc;
	}
	const struct kopt_llm *cfg = &agent_role(req->cfg, KOPT_ROLE_DEBUGGER)->llm;
	char *diag = llm_diagnosis_of(&run, false);
	char *context = llm_context_of(&run, diag);
	llm_round_prompt(req, context, NULL, fix, cfg->prompt_tokens, &user);
	int r = llm_run_ask(&run, KOPT_ROLE_DEBUGGER, llm_prompt_system(), user.buf, strlen(context), &text, &err);
	json_t *sample = llm_sample_of(req, r == 0 ? text.buf : NULL, err.buf);
	int rc = 0;
	if (llm_fresh(req, sample)) {
		char *what = xasprintf("llm repair of c%d", fix->index);
		const json_t *cfgj = json_object_get(sample, "config");
		struct agent_candidate ac = { .source = llm_str(sample, "source"), .config = json_is_object(cfgj) ? cfgj : NULL,
					      .role = "debugger", .name = "llm", .strategy = what };
		reply->candidate = agent_candidate_new(&ac);
		free(what);
		json_object_set_new(reply->candidate, "repair_of", json_integer(fix->index));
		if (round >= 0)
			json_object_set_new(reply->candidate, "round", json_integer(round));
		if (json_object_get(sample, "notes"))
			json_object_set(reply->candidate, "notes", json_object_get(sample, "notes"));
	} else {
		const char *e = llm_str(sample, "error");
		rc = builtin_slot(req, bi, "error", e ? e : "llm: the repair repeats an earlier candidate", reply);
	}
	llm_run_stamp(&run, reply->candidate);
	json_decref(sample);
	strbuf_release(&err);
	strbuf_release(&text);
	strbuf_release(&user);
	free(context);
	free(diag);
	llm_run_release(&run);
	return rc;
}

int agent_llm_repair(const struct agent_request *req, const struct llm_builtin *bi, const struct agent_try *fix,
		     struct agent_reply *reply)
{
	return repair(req, bi, fix, -1, reply);
}

int agent_llm_tune(const struct agent_request *req, const struct llm_builtin *bi, struct agent_reply *reply)
{
	struct llm_run run;
	llm_run_init(&run, req, bi);
	struct strbuf err = STRBUF_INIT, u = STRBUF_INIT, text = STRBUF_INIT;
	struct llm_state st;
	llm_state_of(req, &st);
	const char *src = st.best >= 0 ? llm_str(req->traj[st.best].candidate, "source") : NULL;
	char *cur = req->kernel->config ? json_dumps(req->kernel->config, JSON_COMPACT | JSON_SORT_KEYS) : xstrdup("{}");
	strbuf_addf(&u, "Triton kernel %s (%s). Current launch config: %s\nTried:\n", req->kernel->name,
		    req->kernel->heuristic ? req->kernel->heuristic : "?", cur);
	free(cur);
	for (size_t i = 0; i < req->ntraj; i++) {
		char *c = json_dumps(json_object_get(req->traj[i].candidate, "config"), JSON_COMPACT | JSON_SORT_KEYS);
		strbuf_addf(&u, "- %s: %s, speedup %.3f\n", c ? c : "null", req->traj[i].verdict, req->traj[i].speedup);
		free(c);
	}
	strbuf_addstr(&u, "Answer with one JSON object with the same keys as the current config, nothing else.");
	json_t *cfg = NULL;
	if (llm_run_ask(&run, KOPT_ROLE_TUNER, "You tune Triton launch configs.", u.buf, 0, &text, &err) == 0) {
		const char *open = strchr(text.buf, '{'), *close = strrchr(text.buf, '}');
		if (open && close && close > open)
			cfg = json_loadb(open, (size_t)(close - open + 1), 0, NULL);
		if (!json_is_object(cfg)) {
			json_decref(cfg);
			cfg = NULL;
			strbuf_addstr(&err, "the reply held no JSON config");
		}
	}
	if (cfg) {
		struct agent_candidate ac = { .source = src, .config = cfg, .role = "tuner", .name = "llm",
					      .strategy = src ? "llm launch config of the best so far" : "llm launch config" };
		reply->candidate = agent_candidate_new(&ac);
		json_decref(cfg);
		llm_run_stamp(&run, reply->candidate);
	} else {
		reply->reason = xasprintf("tuner: %s", err.buf);
	}
	strbuf_release(&err);
	strbuf_release(&u);
	strbuf_release(&text);
	llm_run_release(&run);
	return 0;
}

int agent_llm_propose(const struct agent_request *req, const struct llm_builtin *bi, struct agent_reply *reply)
{
	struct llm_state st;
	llm_state_of(req, &st);
	if ((reply->candidate = next_sample(req, &st)))
		return 0;
	const struct agent_try *fix = round_fix(req, &st);
	if (fix)
		return repair(req, bi, fix, st.round, reply);
	if (tune_due(req, &st)) {
		if (agent_role_is_llm(req->cfg, KOPT_ROLE_TUNER))
			return agent_llm_tune(req, bi, reply);
		if ((reply->candidate = bi->descent(req)))
			return 0;
	}
	if (st.failed >= 2)
		return builtin_slot(req, bi, "llm_off", "llm: the model's last 2 rounds gave nothing that built", reply);
	return new_round(req, bi, &st, reply);
}

char *agent_llm_digest(const struct agent_request *req)
{
	struct strbuf s = STRBUF_INIT;
	for (size_t i = 0; i < req->ntraj; i++) {
		const struct agent_try *t = &req->traj[i];
		char *c = json_dumps(t->candidate, JSON_COMPACT | JSON_SORT_KEYS);
		strbuf_addf(&s, "%d:%s:%s:%.3f:%.2f:%.2f:%s:%s;", t->index, t->verdict ? t->verdict : "-",
			    t->gate ? t->gate : "-", t->speedup, t->base_ns / 1e3, t->cand_ns / 1e3,
			    t->reason ? t->reason : "", c ? c : "");
		free(c);
	}
	return strbuf_detach(&s);
}

size_t agent_llm_prompt(const struct agent_request *req, const struct llm_builtin *bi, struct strbuf *out)
{
	struct llm_run run;
	llm_run_init(&run, req, bi);
	char *diag = llm_diagnosis_of(&run, false);
	char *context = llm_context_of(&run, diag);
	char *strategy = llm_builtin_strategy(&run);
	llm_round_prompt(req, context, strategy, NULL, llm_coder_cfg(req)->prompt_tokens, out);
	size_t n = strlen(context);
	free(strategy);
	free(context);
	free(diag);
	llm_run_release(&run);
	return n;
}
