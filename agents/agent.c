/*
 * agents/agent.c: the five roles, each built in or an LLM as the spec says.
 *
 * Candidate i of a kernel comes from one role:
 *   - the debugger, when the last candidate failed a correctness-type gate
 *     (static, correctness, fp64) and can be repaired;
 *   - the coder, while the planner's strategies last;
 *   - the tuner, after them.
 * The analyst runs for candidate 0 (a kernel it leaves alone gets none) and
 * the planner's plan travels in candidate 0 (agents/builtin/search.c).
 *
 * LLM roles: the coder writes a whole kernel from a prompt that carries the
 * analyst's diagnosis and the planner's strategy; the debugger repairs a
 * failed LLM candidate with the gate's reason; the tuner proposes a launch
 * config as JSON; the analyst and planner write the text the coder reads.
 * Each LLM candidate records its usage ("llm": {calls, tokens, wall_s}) so
 * that the per-kernel budget (llm_calls, tokens, wall) holds across steps
 * and runs; a proposal that would pass it stops the kernel with the limit's
 * name. Keys never reach a candidate: llm_complete scrubs them.
 */
#include <config.h>

#include "agent.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/util.h"
#include "llm.h"
#include "memory.h"

static const struct kopt_role_cfg *role(const struct kopt_agents *cfg, enum kopt_role r)
{
	static const struct kopt_role_cfg builtin = { KOPT_BACKEND_BUILTIN, { 0 } };
	return cfg ? &cfg->roles[r] : &builtin;
}

static bool is_llm(const struct kopt_agents *cfg, enum kopt_role r)
{
	return role(cfg, r)->backend == KOPT_BACKEND_LLM;
}

/* the last candidate failed a gate a repair can address */
static const struct agent_try *repairable(const struct agent_request *req)
{
	if (!req->ntraj)
		return NULL;
	const struct agent_try *t = &req->traj[req->ntraj - 1];
	if (!t->gate || !json_is_string(json_object_get(t->candidate, "source")))
		return NULL;
	if (json_object_get(t->candidate, "repair_of"))
		return NULL; /* one repair per candidate */
	if (strcmp(t->gate, "static") && strcmp(t->gate, "correctness") && strcmp(t->gate, "fp64"))
		return NULL;
	return t;
}

/* ---- LLM roles ---- */

struct llm_usage {
	int calls;
	long tokens;
	double wall_s;
};

static void usage_of(const json_t *cand, struct llm_usage *u)
{
	json_t *l = json_object_get(cand, "llm");
	u->calls += (int)json_integer_value(json_object_get(l, "calls"));
	u->tokens += (long)json_integer_value(json_object_get(l, "tokens"));
	u->wall_s += json_number_value(json_object_get(l, "wall_s"));
}

static void budget_for(const struct agent_request *req, struct llm_budget *b)
{
	struct llm_usage u = { 0, 0, 0 };
	for (size_t i = 0; i < req->ntraj; i++)
		usage_of(req->traj[i].candidate, &u);
	llm_budget_init(b, req->cfg);
	b->calls = u.calls;
	b->tokens = u.tokens;
	b->start = kopt_now() - u.wall_s;
}

static int ask(const struct agent_request *req, enum kopt_role r, const char *system, const char *user,
	       struct llm_budget *b, struct strbuf *text, struct strbuf *err)
{
	struct llm_request q = { 0 };
	q.system = system;
	q.user = user;
	struct llm_reply rep;
	llm_reply_init(&rep);
	int rc = llm_complete(&role(req->cfg, r)->llm, &q, b, &rep, err);
	if (rc == 0)
		strbuf_addstr(text, rep.text.buf);
	llm_reply_release(&rep);
	return rc;
}

static void fill_prompt(const struct agent_request *req, struct llm_kernel_prompt *p)
{
	const struct agent_kernel *k = req->kernel;
	const json_t *row = k->profile_row;
	memset(p, 0, sizeof *p);
	p->kernel_name = k->name;
	p->source = k->source;
	double v = json_number_value(json_object_get(row, "ns_per_call"));
	p->time_us = v > 0 ? v / 1e3 : -1;
	v = json_number_value(json_object_get(row, "launches_per_call"));
	p->calls = v > 0 ? lround(v) : -1;
	v = json_number_value(json_object_get(row, "share"));
	p->share = v > 0 ? v : -1;
	v = json_number_value(json_object_get(row, "bytes"));
	p->bytes = v > 0 ? v : -1;
	v = json_number_value(json_object_get(row, "achieved_gbps"));
	p->achieved_gbs = v > 0 ? v : -1;
	v = json_number_value(json_object_get(row, "frac_peak"));
	p->peak_gbs = v > 0 && p->achieved_gbs > 0 ? p->achieved_gbs / v : -1;
}

static json_t *llm_candidate(const char *source, json_t *config, const char *role_name, const char *what,
			     const struct llm_budget *before, const struct llm_budget *after, double t0)
{
	struct agent_candidate ac = { .source = source, .config = config, .role = role_name, .name = "llm",
				      .strategy = what };
	json_t *c = agent_candidate_new(&ac);
	json_decref(config);
	json_object_set_new(c, "llm", json_pack("{s:i, s:I, s:f}", "calls", after->calls - before->calls,
						 "tokens", (json_int_t)(after->tokens - before->tokens),
						 "wall_s", kopt_now() - t0));
	return c;
}

/* the analyst's and planner's text for the coder: LLM or built in */
static void llm_context(const struct agent_request *req, struct llm_budget *b, struct strbuf *diag,
			struct strbuf *plan, struct strbuf *err)
{
	char *why = NULL;
	agent_builtin_analyze(req->kernel, &why);
	const json_t *c0 = req->ntraj ? req->traj[0].candidate : NULL;
	const char *saved = json_string_value(json_object_get(c0, "analysis"));
	strbuf_addstr(diag, saved ? saved : why);
	free(why);
	if (is_llm(req->cfg, KOPT_ROLE_ANALYST) && !saved) {
		struct strbuf u = STRBUF_INIT;
		strbuf_addf(&u, "Kernel %s, profile: %s\nSay in two sentences whether it is memory- or compute-bound "
			    "and what limits it.\n\n```python\n%s```\n", req->kernel->name, diag->buf,
			    req->kernel->source ? req->kernel->source : "");
		strbuf_reset(diag);
		if (ask(req, KOPT_ROLE_ANALYST, "You analyse GPU kernel profiles.", u.buf, b, diag, err) < 0)
			strbuf_addstr(diag, "(no diagnosis)");
		strbuf_release(&u);
	}
	const char *tried = NULL;
	struct strbuf t = STRBUF_INIT;
	for (size_t i = 0; i < req->ntraj; i++)
		strbuf_addf(&t, "- %s: %s%s%s\n", json_string_value(json_object_get(req->traj[i].candidate, "strategy")),
			    req->traj[i].verdict, req->traj[i].reason ? ": " : "", req->traj[i].reason ? req->traj[i].reason : "");
	tried = t.len ? t.buf : "nothing yet";
	if (is_llm(req->cfg, KOPT_ROLE_PLANNER)) {
		struct strbuf u = STRBUF_INIT;
		strbuf_addf(&u, "Diagnosis: %s\nTried so far:\n%s\nName the one rewrite strategy to try next for kernel %s, in one sentence.",
			    diag->buf, tried, req->kernel->name);
		if (ask(req, KOPT_ROLE_PLANNER, "You plan GPU kernel optimizations.", u.buf, b, plan, err) < 0)
			strbuf_addstr(plan, "the fastest correct rewrite you can write");
		strbuf_release(&u);
	} else {
		json_t *p = agent_builtin_plan(req->kernel, req->memory, req->scope, NULL);
		char *ps = json_dumps(p, JSON_COMPACT);
		strbuf_addf(plan, "ranked by what paid on similar kernels: %s; already tried:\n%s", ps, tried);
		free(ps);
		json_decref(p);
	}
	strbuf_release(&t);
}

static int llm_coder(const struct agent_request *req, const struct agent_try *fix, struct agent_reply *reply)
{
	struct llm_budget b, before;
	struct strbuf err = STRBUF_INIT, diag = STRBUF_INIT, plan = STRBUF_INIT, prompt = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT, src = STRBUF_INIT;
	double t0 = kopt_now();
	budget_for(req, &b);
	before = b;
	if (!req->kernel->source) {
		reply->reason = xstrdup("coder: the kernel's source is not at hand");
		return 0;
	}
	if (llm_budget_check(&b, 0, &err) < 0) {
		reply->reason = strbuf_detach(&err);
		return 0;
	}
	enum kopt_role r = fix ? KOPT_ROLE_DEBUGGER : KOPT_ROLE_CODER;
	if (!fix)
		llm_context(req, &b, &diag, &plan, &err);
	struct llm_kernel_prompt p;
	fill_prompt(req, &p);
	p.diagnosis = diag.len ? diag.buf : NULL;
	p.strategy = plan.len ? plan.buf : NULL;
	if (fix) {
		p.candidate = json_string_value(json_object_get(fix->candidate, "source"));
		p.gate = fix->gate;
		p.gate_reason = fix->reason;
	}
	llm_prompt_kernel(&p, &prompt);
	strbuf_reset(&err);
	int rc = ask(req, r, llm_prompt_system(), prompt.buf, &b, &text, &err);
	if (rc == 0 && llm_extract_kernel(text.buf, req->kernel->name, &src, &err) == 0) {
		reply->candidate = llm_candidate(src.buf, NULL, fix ? "debugger" : "coder",
						 fix ? "llm repair" : "llm rewrite", &before, &b, t0);
		if (fix)
			json_object_set_new(reply->candidate, "repair_of", json_integer(fix->index));
	} else if (strstr(err.buf, "llm budget")) {
		reply->reason = xasprintf("%s: %s", fix ? "debugger" : "coder", err.buf);
	} else {
		/* a malformed or failed reply is a failed candidate, never a crash:
		 * it goes to the gates as a candidate that does not parse */
		reply->candidate = llm_candidate("# the model's reply held no kernel\n", NULL, fix ? "debugger" : "coder",
						 "llm rewrite (no kernel in the reply)", &before, &b, t0);
		json_object_set_new(reply->candidate, "error", json_string(err.buf));
	}
	strbuf_release(&err);
	strbuf_release(&diag);
	strbuf_release(&plan);
	strbuf_release(&prompt);
	strbuf_release(&text);
	strbuf_release(&src);
	return 0;
}

/* the LLM tuner: a launch config as JSON, given what was tried */
static int llm_tuner(const struct agent_request *req, struct agent_reply *reply)
{
	struct llm_budget b, before;
	struct strbuf err = STRBUF_INIT, u = STRBUF_INIT, text = STRBUF_INIT;
	double t0 = kopt_now();
	budget_for(req, &b);
	before = b;
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
	if (ask(req, KOPT_ROLE_TUNER, "You tune Triton launch configs.", u.buf, &b, &text, &err) == 0) {
		const char *open = strchr(text.buf, '{'), *close = strrchr(text.buf, '}');
		if (open && close && close > open)
			cfg = json_loadb(open, (size_t)(close - open + 1), 0, NULL);
		if (!json_is_object(cfg)) {
			json_decref(cfg);
			cfg = NULL;
			strbuf_addstr(&err, "tuner: the reply held no JSON config");
		}
	}
	if (cfg)
		reply->candidate = llm_candidate(NULL, cfg, "tuner", "llm launch config", &before, &b, t0);
	else
		reply->reason = xasprintf("tuner: %s", err.buf);
	strbuf_release(&err);
	strbuf_release(&u);
	strbuf_release(&text);
	return 0;
}

/* an earlier proposal had no candidate: the search of this kernel is over */
static int stopped(const struct agent_request *req)
{
	for (size_t i = 0; i < req->ntraj; i++)
		if (!req->traj[i].candidate)
			return (int)i;
	return -1;
}

int agent_propose(const struct agent_request *req, struct agent_reply *reply)
{
	reply->candidate = NULL;
	reply->reason = NULL;
	const struct kopt_agents *cfg = req->cfg;
	char *why = NULL;
	int stop = stopped(req);
	if (stop >= 0) {
		reply->reason = xasprintf("no more candidates: candidate %d had none", stop);
		return 0;
	}
	if (req->index == 0 && agent_builtin_analyze(req->kernel, &why)) {
		reply->reason = why;
		return 0;
	}
	free(why);
	const struct agent_try *fix = repairable(req);
	if (fix && is_llm(cfg, KOPT_ROLE_DEBUGGER))
		return llm_coder(req, fix, reply);
	if (is_llm(cfg, KOPT_ROLE_CODER)) {
		int rc = llm_coder(req, NULL, reply);
		if (rc == 0 && reply->candidate && req->index == 0) {
			char *ranked = NULL;
			json_t *plan = agent_builtin_plan(req->kernel, req->memory, req->scope, &ranked);
			json_object_set_new(reply->candidate, "plan", plan);
			json_object_set_new(reply->candidate, "planning", json_string(ranked));
			free(ranked);
		}
		return rc;
	}
	int rc = agent_builtin_propose(req, req->memory, reply);
	/* the LLM tuner takes the built-in tuner's turns, but not a screened
	 * config: that one was measured */
	if (rc == 0 && is_llm(cfg, KOPT_ROLE_TUNER) && reply->candidate &&
	    strcmp(json_string_value(json_object_get(reply->candidate, "role")), "tuner") == 0 &&
	    strcmp(json_string_value(json_object_get(reply->candidate, "name")), "screen") != 0) {
		agent_reply_release(reply);
		return llm_tuner(req, reply);
	}
	return rc;
}

bool agent_needs_feedback(const struct kopt_agents *cfg, int index)
{
	(void)cfg;
	return index > 0; /* the plan travels in candidate 0 */
}

char *agent_context_digest(const struct agent_request *req)
{
	if (!agent_needs_feedback(req->cfg, req->index))
		return xstrdup("");
	if (stopped(req) >= 0)
		return xasprintf("stopped at %d", stopped(req));
	if (!is_llm(req->cfg, KOPT_ROLE_CODER) && !is_llm(req->cfg, KOPT_ROLE_DEBUGGER) &&
	    !is_llm(req->cfg, KOPT_ROLE_TUNER))
		return agent_builtin_digest(req);
	/* LLM roles read the whole trajectory: candidates and verdicts */
	struct strbuf s = STRBUF_INIT;
	for (size_t i = 0; i < req->ntraj; i++) {
		char *c = json_dumps(req->traj[i].candidate, JSON_COMPACT | JSON_SORT_KEYS);
		strbuf_addf(&s, "%d:%s:%s:%s;", req->traj[i].index, req->traj[i].verdict,
			    req->traj[i].gate ? req->traj[i].gate : "-", c ? c : "");
		free(c);
	}
	return strbuf_detach(&s);
}

/* a keyed field's value in a fingerprint */
static void fp_value(struct strbuf *s, const struct lang_field *f, const void *base)
{
	const char *p = (const char *)base + f->off;
	switch (f->type) {
	case LANG_F_INT: strbuf_addf(s, "%d", *(const int *)p); break;
	case LANG_F_LONG: strbuf_addf(s, "%ld", *(const long *)p); break;
	case LANG_F_U64: strbuf_addf(s, "%llu", (unsigned long long)*(const uint64_t *)p); break;
	case LANG_F_REAL:
	case LANG_F_FRACTION:
	case LANG_F_DURATION: strbuf_addf(s, "%.17g", *(const double *)p); break;
	case LANG_F_BOOL: strbuf_addf(s, "%d", *(const bool *)p); break;
	case LANG_F_STR:
	case LANG_F_PROVIDER:
	case LANG_F_MODE: strbuf_addstr(s, *(char *const *)p ? *(char *const *)p : ""); break;
	default: kopt_die("no fingerprint form for field '%s'", f->name);
	}
}

/*
 * From the agents' list (lang/fields.h), its fields with LANG_KEY: each
 * role's backend ("builtin;" or "llm:" and the llm() arguments with
 * LANG_KEY, ':' between, then ';'), the built-in search's version (v2: the
 * persistent edit, first in the reduction plan; descent on a source edit),
 * then every other keyed field as ";NAME=VALUE" (the seed, which the
 * tuner's random jumps follow).
 */
char *agent_fingerprint(const struct kopt_agents *cfg)
{
	struct strbuf s = STRBUF_INIT;
	const struct lang_fields *fs = &lang_agents_fields;
	for (size_t i = 0; i < fs->n; i++) {
		if (fs->f[i].type != LANG_F_ROLE || !(fs->f[i].flags & LANG_KEY))
			continue;
		const struct kopt_role_cfg *rc = (const void *)((const char *)cfg + fs->f[i].off);
		if (rc->backend == KOPT_BACKEND_BUILTIN) {
			strbuf_addstr(&s, "builtin;");
			continue;
		}
		strbuf_addstr(&s, "llm");
		for (size_t k = 0; k < lang_llm_fields.n; k++)
			if (lang_llm_fields.f[k].flags & LANG_KEY) {
				strbuf_addch(&s, ':');
				fp_value(&s, &lang_llm_fields.f[k], &rc->llm);
			}
		strbuf_addch(&s, ';');
	}
	strbuf_addstr(&s, AGENT_BUILTIN_VERSION);
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].type != LANG_F_ROLE && fs->f[i].flags & LANG_KEY) {
			strbuf_addf(&s, ";%s=", fs->f[i].name);
			fp_value(&s, &fs->f[i], cfg);
		}
	return strbuf_detach(&s);
}

json_t *agent_candidate_new(const struct agent_candidate *c)
{
	return json_pack("{s:o, s:o, s:s, s:s, s:s}", "source", c->source ? json_string(c->source) : json_null(),
			 "config", c->config ? json_deep_copy(c->config) : json_null(), "role", c->role, "name",
			 c->name, "strategy", c->strategy);
}

static void set_name(struct agent_candidate *c, const char *name, size_t n)
{
	if (n >= sizeof c->name)
		n = sizeof c->name - 1;
	memcpy(c->name, name, n);
	c->name[n] = '\0';
}

int agent_candidate_read(const json_t *j, struct agent_candidate *c)
{
	memset(c, 0, sizeof *c);
	if (!json_is_object(j))
		return -1;
	c->source = json_string_value(json_object_get(j, "source"));
	const json_t *cfg = json_object_get(j, "config");
	c->config = json_is_object(cfg) ? cfg : NULL;
	c->role = json_string_value(json_object_get(j, "role"));
	c->strategy = json_string_value(json_object_get(j, "strategy"));
	c->planning = json_string_value(json_object_get(j, "planning"));
	const char *name = json_string_value(json_object_get(j, "name"));
	if (name) {
		set_name(c, name, strlen(name));
	} else if (c->strategy) {
		/* proposed before candidates named their strategy: what follows
		 * the role ("coder: r-down (XBLOCK=...)"), up to a space or a
		 * parenthesis; "llm rewrite" has no role: "llm" */
		const char *p = strchr(c->strategy, ':');
		p = p ? p + 2 : c->strategy;
		set_name(c, p, strcspn(p, " ("));
	}
	return 0;
}

int agent_learn(const char *memory, const char *scope, const char *key, const struct agent_kernel *k,
		const json_t *candidate, bool pass, double speedup)
{
	struct agent_candidate c;
	if (!memory || agent_candidate_read(candidate, &c) < 0 || !c.name[0])
		return 0;
	char *features = agent_builtin_features(k);
	/* a config-only candidate's launch config, in the problem's terms */
	char *shape = c.config && !c.source ? agent_builtin_shape(c.config, k->source) : NULL;
	int rc = memory_append(memory, scope, features, c.name, shape, key, pass, speedup);
	free(shape);
	free(features);
	return rc;
}

void agent_reply_release(struct agent_reply *reply)
{
	json_decref(reply->candidate);
	free(reply->reason);
	reply->candidate = NULL;
	reply->reason = NULL;
}
