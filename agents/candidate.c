/*
 * agents/candidate.c: the candidate library: a candidate written as JSON
 * and read back (the rules read proposals with it), a screened point told
 * apart, a reply released, and which backend plays a role.
 */
#include <config.h>

#include "candidate.h"

#include <stdlib.h>
#include <string.h>

#include "../common/util.h"

const struct kopt_role_cfg *agent_role(const struct kopt_agents *cfg, enum kopt_role r)
{
	static const struct kopt_role_cfg builtin = { KOPT_BACKEND_BUILTIN, { 0 } };
	return cfg ? &cfg->roles[r] : &builtin;
}

bool agent_role_is_llm(const struct kopt_agents *cfg, enum kopt_role r)
{
	return agent_role(cfg, r)->backend == KOPT_BACKEND_LLM;
}

bool agent_screened(const json_t *candidate)
{
	const char *n = json_string_value(json_object_get(candidate, "name"));
	return n && strncmp(n, "screen", 6) == 0 && (n[6] == '\0' || n[6] == ':');
}

json_t *agent_candidate_new(const struct agent_candidate *c)
{
	json_t *j = json_pack("{s:o, s:o, s:s, s:s, s:s}", "source", c->source ? json_string(c->source) : json_null(),
			      "config", c->config ? json_deep_copy(c->config) : json_null(), "role", c->role, "name",
			      c->name, "strategy", c->strategy);
	if (c->edit && *c->edit)
		json_object_set_new(j, "edit", json_string(c->edit));
	return j;
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
	c->edit = json_string_value(json_object_get(j, "edit"));
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

void agent_reply_release(struct agent_reply *reply)
{
	json_decref(reply->candidate);
	free(reply->reason);
	reply->candidate = NULL;
	reply->reason = NULL;
}
