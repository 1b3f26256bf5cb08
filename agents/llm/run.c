/*
 * agents/llm/run.c: the roles' backends; one proposal's calls of the
 * models, the budget they draw on and what they used; and what the models
 * cost over a trajectory (agent_usage_*).
 *
 * The budget of a kernel's LLM calls (calls, tokens, wall time) is summed
 * over its trajectory: each candidate whose proposal called a model records
 * "llm": {"calls", "tokens", "wall_s", "usage": [{"model", "calls", "in",
 * "cached", "out"}]}, and a run starts from those sums.
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "run.h"

#include <stdlib.h>
#include <string.h>

const struct kopt_llm *llm_coder_cfg(const struct agent_request *req)
{
	return &agent_role(req->cfg, KOPT_ROLE_CODER)->llm;
}

/* ---- one proposal's calls: the budget and the usage ---- */

void llm_run_init(struct llm_run *run, const struct agent_request *req, const struct llm_builtin *builtin)
{
	run->req = req;
	run->builtin = builtin;
	llm_budget_init(&run->b, req->cfg);
	long tokens = 0;
	int calls = 0;
	double wall = 0;
	for (size_t i = 0; i < req->ntraj; i++) {
		json_t *l = json_object_get(req->traj[i].candidate, "llm");
		calls += (int)json_integer_value(json_object_get(l, "calls"));
		tokens += (long)json_integer_value(json_object_get(l, "tokens"));
		wall += json_number_value(json_object_get(l, "wall_s"));
	}
	run->b.calls = calls;
	run->b.tokens = tokens;
	run->b.start = kopt_now() - wall;
	run->before = run->b;
	run->t0 = kopt_now();
	run->usage = json_array();
}

void llm_run_note(struct llm_run *run, const struct kopt_llm *cfg, const struct llm_reply *r)
{
	if (r->attempts <= 0)
		return;
	const char *model = cfg->model ? cfg->model : "?";
	json_t *row = NULL, *e;
	size_t i;
	json_array_foreach(run->usage, i, e)
		if (strcmp(llm_str(e, "model"), model) == 0)
			row = e;
	if (!row) {
		row = json_pack("{s:s, s:i, s:I, s:I, s:I}", "model", model, "calls", 0, "in", (json_int_t)0, "cached",
				(json_int_t)0, "out", (json_int_t)0);
		json_array_append_new(run->usage, row);
	}
	json_object_set_new(row, "calls", json_integer(json_integer_value(json_object_get(row, "calls")) + 1));
	const char *k[] = { "in", "cached", "out" };
	long v[] = { r->input_tokens, r->cached_tokens, r->output_tokens };
	for (size_t j = 0; j < 3; j++)
		if (v[j] > 0)
			json_object_set_new(row, k[j], json_integer(json_integer_value(json_object_get(row, k[j])) + v[j]));
}

/* c records what the proposal's calls cost (when it made any) */
void llm_run_stamp(struct llm_run *run, json_t *c)
{
	if (c && run->b.calls > run->before.calls)
		json_object_set_new(c, "llm", json_pack("{s:i, s:I, s:f, s:O}", "calls", run->b.calls - run->before.calls,
							 "tokens", (json_int_t)(run->b.tokens - run->before.tokens),
							 "wall_s", kopt_now() - run->t0, "usage", run->usage));
}

void llm_run_release(struct llm_run *run)
{
	json_decref(run->usage);
}

/* one call of role r; its text appended to text */
int llm_run_ask(struct llm_run *run, enum kopt_role r, const char *system, const char *user, size_t stable,
		struct strbuf *text, struct strbuf *err)
{
	const struct kopt_llm *cfg = &agent_role(run->req->cfg, r)->llm;
	struct llm_request q = { 0 };
	q.system = system;
	q.user = user;
	q.user_stable = stable;
	struct llm_reply rep;
	llm_reply_init(&rep);
	int rc = llm_complete(cfg, &q, &run->b, &rep, err);
	llm_run_note(run, cfg, &rep);
	if (rc == 0)
		strbuf_addstr(text, rep.text.buf);
	llm_reply_release(&rep);
	return rc;
}

/* ---- what the models cost ---- */

void agent_usage_add(struct agent_usage *u, const json_t *candidate)
{
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(json_object_get(candidate, "llm"), "usage"), i, e) {
		const char *model = llm_str(e, "model");
		if (!model)
			continue;
		struct agent_usage_row *row = NULL;
		for (size_t j = 0; j < u->n && !row; j++)
			if (strcmp(u->rows[j].model, model) == 0)
				row = &u->rows[j];
		if (!row) {
			u->rows = xgrow(u->rows, &u->cap, u->n + 1, sizeof *u->rows);
			row = &u->rows[u->n++];
			memset(row, 0, sizeof *row);
			row->model = xstrdup(model);
		}
		row->calls += (int)json_integer_value(json_object_get(e, "calls"));
		row->in += (long)json_integer_value(json_object_get(e, "in"));
		row->cached += (long)json_integer_value(json_object_get(e, "cached"));
		row->out += (long)json_integer_value(json_object_get(e, "out"));
	}
}

/* the llm() of cfg's roles that names model and gives a price, or NULL */
static const struct kopt_llm *priced(const struct kopt_agents *cfg, const char *model)
{
	for (int r = 0; cfg && r < KOPT_ROLE_COUNT; r++) {
		const struct kopt_llm *l = &cfg->roles[r].llm;
		if (cfg->roles[r].backend == KOPT_BACKEND_LLM && l->model && strcmp(l->model, model) == 0 &&
		    (l->price_in > 0 || l->price_out > 0))
			return l;
	}
	return NULL;
}

void agent_usage_line(const struct agent_usage *u, const struct kopt_agents *cfg, struct strbuf *md)
{
	if (!u->n)
		return;
	strbuf_addstr(md, "LLM use: ");
	double total = 0;
	bool all_priced = true;
	for (size_t i = 0; i < u->n; i++) {
		const struct agent_usage_row *r = &u->rows[i];
		strbuf_addf(md, "%s%s, %d call%s, %ld tokens in (%ld of them from the provider's cache), %ld out",
			    i ? "; " : "", r->model, r->calls, kopt_plural(r->calls), r->in, r->cached, r->out);
		const struct kopt_llm *l = priced(cfg, r->model);
		if (l) {
			double cached = l->price_cached > 0 ? l->price_cached : l->price_in;
			double usd = ((double)(r->in - r->cached) * l->price_in + (double)r->cached * cached +
				      (double)r->out * l->price_out) / 1e6;
			strbuf_addf(md, ", $%.2f", usd);
			total += usd;
		} else {
			all_priced = false;
		}
	}
	if (u->n > 1 && all_priced)
		strbuf_addf(md, "; $%.2f in all", total);
	strbuf_addstr(md, all_priced ? " (at the spec's prices).\n" : ".\n");
}

void agent_usage_release(struct agent_usage *u)
{
	for (size_t i = 0; i < u->n; i++)
		free(u->rows[i].model);
	free(u->rows);
	memset(u, 0, sizeof *u);
}
