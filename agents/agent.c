/* agents/agent.c: dispatch from the agents declaration to an implementation. */
#include <config.h>

#include "agent.h"

#include <stdlib.h>
#include <string.h>

#include "../common/util.h"

int agent_propose(const struct agent_request *req, struct agent_reply *reply)
{
	reply->candidate = NULL;
	reply->reason = NULL;
	/* The coder role decides what a candidate is. LLM backends arrive
	 * later behind this same call; until then every role is built in. */
	if (req->cfg && req->cfg->roles[KOPT_ROLE_CODER].backend == KOPT_BACKEND_LLM) {
		reply->reason = xstrdup("the llm agent backend is not available in this build");
		return -1;
	}
	char *why = NULL;
	json_t *cfg = agent_builtin_config(req->kernel->heuristic, req->kernel->config, req->index, &why);
	if (!cfg) {
		reply->reason = why ? why : xstrdup("no more launch configs");
		return 0;
	}
	free(why);
	struct strbuf s = STRBUF_INIT;
	strbuf_addstr(&s, "config:");
	const char *order[] = { "XBLOCK", "YBLOCK", "R0_BLOCK", "num_warps", "num_stages" };
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		json_t *v = json_object_get(cfg, order[i]);
		if (v)
			strbuf_addf(&s, " %s=%lld", order[i], (long long)json_integer_value(v));
	}
	reply->candidate = json_pack("{s:n, s:o, s:s}", "source", "config", cfg, "strategy", s.buf);
	strbuf_release(&s);
	return 0;
}

bool agent_needs_feedback(const struct kopt_agents *cfg, int index)
{
	(void)cfg;
	(void)index;
	return false; /* the built-in config sweep does not look at verdicts */
}

char *agent_context_digest(const struct agent_request *req)
{
	if (!agent_needs_feedback(req->cfg, req->index))
		return xstrdup("");
	/* feedback agents: the verdicts they learn from, nothing measured */
	struct strbuf s = STRBUF_INIT;
	for (size_t i = 0; i < req->ntraj; i++)
		strbuf_addf(&s, "%d:%s:%s;", req->traj[i].index, req->traj[i].verdict,
			    req->traj[i].gate ? req->traj[i].gate : "-");
	return strbuf_detach(&s);
}

char *agent_fingerprint(const struct kopt_agents *cfg)
{
	struct strbuf s = STRBUF_INIT;
	for (int r = 0; r < KOPT_ROLE_COUNT; r++) {
		const struct kopt_role_cfg *rc = &cfg->roles[r];
		if (rc->backend == KOPT_BACKEND_BUILTIN) {
			strbuf_addstr(&s, "builtin;");
		} else {
			strbuf_addf(&s, "llm:%s:%s:%s:%.17g:%ld;", rc->llm.provider ? rc->llm.provider : "",
				    rc->llm.model ? rc->llm.model : "", rc->llm.url ? rc->llm.url : "",
				    rc->llm.temperature, rc->llm.max_tokens);
		}
	}
	/* the built-in sweep is a fixed enumeration: the seed does not change it */
	strbuf_addstr(&s, "configs-v1");
	return strbuf_detach(&s);
}

void agent_reply_release(struct agent_reply *reply)
{
	json_decref(reply->candidate);
	free(reply->reason);
	reply->candidate = NULL;
	reply->reason = NULL;
}
