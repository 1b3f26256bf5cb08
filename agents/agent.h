/*
 * agents/agent.h: the dispatcher, what the rules ask of the agents.
 *
 * One call proposes candidate `index` for one hot Triton kernel. The agent
 * sees the kernel (name, heuristic kind, source, current launch config, its
 * profile row), the agents declaration of the spec, and the trajectory: the
 * earlier candidates of this kernel with their verdicts and numbers. It
 * answers a candidate or "no more candidates" with a reason. agent.c
 * picks, role by role, the built-in agents (agents/builtin.h) or the LLM
 * agents (agents/llm.h); both stand on the candidate library
 * (agents/candidate.h, which this header brings in: the request, the
 * reply and who owns them).
 *
 * The engine keys a proposal on the kernel, agent_fingerprint() and
 * agent_context_digest(): an agent whose candidate i does not depend on the
 * outcome of earlier candidates returns "" as the digest, so a change of
 * gates (which changes verdicts) does not redo its proposals. An agent that
 * learns from feedback puts into the digest exactly what it used.
 */
#ifndef KOPT_AGENT_H
#define KOPT_AGENT_H

#include <jansson.h>
#include <stdbool.h>

#include "candidate.h"

/* bump when the built-in agents propose differently for the same inputs:
 * it is part of every proposal's key (agent_fingerprint) */
#define AGENT_BUILTIN_VERSION "search-v5"
/* the kernel transforms' version (runtime/python/kopt/transforms.py
 * VERSION, checked by tests/lists.py): the screen keys on it, since the
 * worker makes their text */
#define AGENT_TRANSFORMS_VERSION 1
/* the same for the LLM roles: part of the fingerprint of agents that have one */
#define AGENT_LLM_VERSION "llm-v2"

/*
 * Proposes candidate req->index. Returns 0 with reply->candidate set, or 0
 * with candidate NULL and a reason when there are no more candidates, or -1
 * with a reason on an error (the step fails).
 */
int agent_propose(const struct agent_request *req, struct agent_reply *reply);

/* whether candidate index needs the verdicts of earlier candidates */
bool agent_needs_feedback(const struct kopt_agents *cfg, int index);

/* the part of the trajectory a proposal depends on; "" when none. Caller frees. */
char *agent_context_digest(const struct agent_request *req);

/* canonical text of the agent settings that change proposals (backends,
 * LLM models); not the budget. Caller frees. */
char *agent_fingerprint(const struct kopt_agents *cfg);

/*
 * Records a verdict in the long-term memory: the kernel's feature class, the
 * candidate's strategy, pass or fail and the kernel speedup, and where the
 * candidate edits the source by name ("edit") the edit, its config and the
 * kernel's class (a skill); key (NULL for none) names the verdict, so that
 * it is learned once (memory_seen). 0 or -1.
 */
int agent_learn(const char *memory, const char *scope, const char *key, const struct agent_kernel *k,
		const json_t *candidate, bool pass, double speedup);

/*
 * The skills for k (its class's and its feature class's, from every spec,
 * in the memory's first upto bytes: memory_skills), at most max, as the screen takes them (rules/screen.c):
 * [{"edit", "config" (the skill's config as this kernel's, where it
 * converts), "skill": what it is, for people and the report}]. New
 * reference; [] without a memory.
 */
json_t *agent_skills(const char *memory, long long upto, const struct agent_kernel *k, size_t max);

/* the kernel transforms the analyst's diagnosis of k calls for, in the
 * order to try them (agents/builtin/transform.c); new reference */
json_t *agent_transforms(const struct agent_kernel *k);

/* the analyst's verdict on k, before candidate 0: 1 = leave the kernel
 * alone (*why says so), 0 = go on (*why is the diagnosis); caller frees */
int agent_analyze(const struct agent_kernel *k, char **why);

#endif
