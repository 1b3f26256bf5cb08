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
#define AGENT_BUILTIN_VERSION "search-v4"
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
 * candidate's strategy, pass or fail and the kernel speedup; key (NULL for
 * none) names the verdict, so that it is learned once (memory_seen). 0 or -1.
 */
int agent_learn(const char *memory, const char *scope, const char *key, const struct agent_kernel *k,
		const json_t *candidate, bool pass, double speedup);

/* ---- built-in agents (agents/builtin/: search.c, plan.c, launch.c) ---- */

/* analyst: 1 = leave the kernel alone (why says so), 0 = go on (why is the diagnosis) */
int agent_builtin_analyze(const struct agent_kernel *k, char **why);
/* planner: strategy names, best first (JSON array, new reference); *why,
 * when why is not NULL, is a sentence on what ranked them (caller frees) */
json_t *agent_builtin_plan(const struct agent_kernel *k, const char *memory, const char *scope, char **why);
int agent_builtin_propose(const struct agent_request *req, const char *memory, struct agent_reply *reply);
char *agent_builtin_digest(const struct agent_request *req);

/* tuner: the next step of the descent around the best passing candidate
 * (its launch config, on its source), or NULL when every move was tried;
 * new reference */
json_t *agent_builtin_descent(const struct agent_request *req);

/* ---- LLM agents (agents/llm/coder.c; the usage: agents/llm/run.c) ---- */

/* candidate req->index when the coder is an LLM: rounds of the model's
 * replies, repairs, the built-in tuner on its best, the built-in search
 * after it (coder.c says in which order) */
int agent_llm_propose(const struct agent_request *req, struct agent_reply *reply);
/* the LLM debugger's repair of fix, a candidate of the built-in coder */
int agent_llm_repair(const struct agent_request *req, const struct agent_try *fix, struct agent_reply *reply);
/* the LLM tuner: a launch config as JSON, given what was tried */
int agent_llm_tune(const struct agent_request *req, struct agent_reply *reply);
/* the context digest of agents with an LLM role: the trajectory as their
 * prompts and choices read it. Caller frees. */
char *agent_llm_digest(const struct agent_request *req);
/* the prompt the coder sends for req's next round (context, then the
 * round's part: no repair), appended to out; returns the context's length */
size_t agent_llm_prompt(const struct agent_request *req, struct strbuf *out);

/* LLM use, summed per LLM model over candidates (each candidate's "llm") */
struct agent_usage_row {
	char *model;                /* owned */
	int calls;
	long in, cached, out;       /* input tokens (of them, read from the provider's cache), output */
};
struct agent_usage {
	struct agent_usage_row *rows;
	size_t n, cap;
};
void agent_usage_add(struct agent_usage *u, const json_t *candidate);
/* one Markdown line: calls and tokens per LLM model and, where the spec
 * gives that model's prices (its llm() in cfg), the money; nothing when
 * no model was called */
void agent_usage_line(const struct agent_usage *u, const struct kopt_agents *cfg, struct strbuf *md);
void agent_usage_release(struct agent_usage *u);

#endif
