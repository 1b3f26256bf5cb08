/*
 * agents/agent.c: the dispatcher: the five roles, each built in or an LLM as
 * the spec says.
 *
 * Candidate i of a kernel comes from one role:
 *   - the debugger, when the last candidate failed a correctness-type gate
 *     (static, correctness, fp64) and can be repaired;
 *   - the coder, while the planner's strategies last;
 *   - the tuner, after them.
 * The analyst runs for candidate 0 (a kernel it leaves alone gets none) and
 * the planner's plan travels in candidate 0 (agents/builtin/search.c).
 *
 * LLM roles (agents/llm/coder.c): an LLM coder asks the model in rounds,
 * each for several replies at once, on the best candidate so far and the
 * attempts with their times; a candidate it makes passes through the
 * built-in tuner's descent; the built-in search fills the candidates its
 * budget (llm_calls, tokens, wall) leaves. The debugger repairs a failed
 * candidate with the gate's reason and the analyst's diagnosis; the tuner
 * proposes a launch config as JSON; the analyst and planner write the text
 * the coder reads. Each LLM candidate records its usage ("llm": {calls,
 * tokens, wall_s, usage}) so that the per-kernel budget holds across steps
 * and runs. Keys never reach a candidate: llm_complete scrubs them.
 */
#include <config.h>

#include "agent.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/util.h"
#include "builtin.h"
#include "llm.h"
#include "features.h"
#include "memory.h"

/* the built-in roles the LLM roles stand on */
static const struct llm_builtin builtin_roles = {
	.analyze = agent_builtin_analyze,
	.plan = agent_builtin_plan,
	.propose = agent_builtin_propose,
	.descent = agent_builtin_descent,
};

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
	if (req->index == 0 && agent_analyze(req->kernel, &why)) {
		reply->reason = why;
		return 0;
	}
	free(why);
	if (agent_role_is_llm(cfg, KOPT_ROLE_CODER))
		return agent_llm_propose(req, &builtin_roles, reply);
	const struct agent_try *fix = repairable(req);
	if (fix && agent_role_is_llm(cfg, KOPT_ROLE_DEBUGGER))
		return agent_llm_repair(req, &builtin_roles, fix, reply);
	int rc = agent_builtin_propose(req, req->memory, reply);
	/* the LLM tuner takes the built-in tuner's turns, but not a screened
	 * config: that one was measured */
	if (rc == 0 && agent_role_is_llm(cfg, KOPT_ROLE_TUNER) && reply->candidate &&
	    strcmp(json_string_value(json_object_get(reply->candidate, "role")), "tuner") == 0 &&
	    !agent_screened(reply->candidate)) {
		agent_reply_release(reply);
		return agent_llm_tune(req, &builtin_roles, reply);
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
	if (!agent_role_is_llm(req->cfg, KOPT_ROLE_CODER) && !agent_role_is_llm(req->cfg, KOPT_ROLE_DEBUGGER) &&
	    !agent_role_is_llm(req->cfg, KOPT_ROLE_TUNER))
		return agent_builtin_digest(req);
	/* LLM roles read the whole trajectory: candidates, verdicts, reasons and times */
	char *d = agent_llm_digest(req);
	char *s = xasprintf(AGENT_LLM_VERSION ";%s", d);
	free(d);
	return s;
}

int agent_analyze(const struct agent_kernel *k, char **why)
{
	return agent_builtin_analyze(k, why);
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
	for (int r = 0; r < KOPT_ROLE_COUNT; r++)
		if (cfg->roles[r].backend == KOPT_BACKEND_LLM) {
			strbuf_addstr(&s, ";" AGENT_LLM_VERSION);
			break;
		}
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].type != LANG_F_ROLE && fs->f[i].flags & LANG_KEY) {
			strbuf_addf(&s, ";%s=", fs->f[i].name);
			fp_value(&s, &fs->f[i], cfg);
		}
	return strbuf_detach(&s);
}

int agent_learn(const char *memory, const char *scope, const char *key, const struct agent_kernel *k,
		const json_t *candidate, bool pass, double speedup)
{
	struct agent_candidate c;
	if (!memory || agent_candidate_read(candidate, &c) < 0 || !c.name[0])
		return 0;
	char *features = agent_features(k);
	/* the launch config, in the problem's terms: a config-only
	 * candidate's, and a named edit's (a skill's parameters) */
	bool edited = c.source && c.edit && *c.edit;
	char *shape = c.config && (!c.source || edited) ? agent_shape(c.config, k->source) : NULL;
	struct mem_lesson l = { .scope = scope, .features = features, .strategy = c.name, .shape = shape, .key = key,
				.edit = edited ? c.edit : NULL, .cls = edited ? k->cls : NULL, .pass = pass,
				.speedup = speedup };
	int rc = memory_append_lesson(memory, &l);
	free(shape);
	free(features);
	return rc;
}

json_t *agent_transforms(const struct agent_kernel *k)
{
	return agent_builtin_transforms(k);
}

json_t *agent_skills(const char *memory, long long upto, const struct agent_kernel *k, size_t max)
{
	json_t *out = json_array();
	if (!memory)
		return out;
	char *features = agent_features(k);
	json_t *sk = memory_skills(memory, features, k->cls, max, upto);
	size_t i;
	json_t *e;
	json_array_foreach(sk, i, e) {
		const char *edit = json_string_value(json_object_get(e, "edit"));
		bool by_class = strcmp(json_string_value(json_object_get(e, "match")), "class") == 0;
		json_t *o = json_pack("{s:s}", "edit", edit);
		json_t *c = agent_shape_config(json_string_value(json_object_get(e, "shape")), k->source, k->config);
		if (c)
			json_object_set_new(o, "config", c);
		json_int_t wins = json_integer_value(json_object_get(e, "wins"));
		json_int_t tries = json_integer_value(json_object_get(e, "tries"));
		char *what = xasprintf("%s, %.3fx in %lld of %lld tr%s on kernels of its %s", edit,
				       json_number_value(json_object_get(e, "x")), (long long)wins, (long long)tries,
				       tries == 1 ? "y" : "ies", by_class ? "class" : "feature class");
		json_object_set_new(o, "skill", json_string(what));
		free(what);
		json_array_append_new(out, o);
	}
	json_decref(sk);
	free(features);
	return out;
}
