/*
 * agents/builtin.h: the built-in agents (agents/builtin/: the analyst and
 * planner in plan.c, the coder's and tuner's search in search.c over the
 * launch configs of launch.c, the screened points of screened.c, the
 * persistent edit of persist.c, the analyst's choice of kernel transforms
 * in transform.c, Helion configs in helion.c). They work
 * offline and propose the same candidates for the same inputs; they stand
 * on the candidate library (agents/candidate.h) and call nothing of the
 * LLM agents. The dispatcher (agents/agent.c) picks them role by role.
 */
#ifndef KOPT_AGENT_BUILTIN_H
#define KOPT_AGENT_BUILTIN_H

#include <jansson.h>

#include "candidate.h"

/* analyst: 1 = leave the kernel alone (why says so), 0 = go on (why is the diagnosis) */
int agent_builtin_analyze(const struct agent_kernel *k, char **why);
/* planner: strategy names, best first (JSON array, new reference); *why,
 * when why is not NULL, is a sentence on what ranked them (caller frees) */
json_t *agent_builtin_plan(const struct agent_kernel *k, const char *memory, const char *scope, char **why);
int agent_builtin_propose(const struct agent_request *req, const char *memory, struct agent_reply *reply);
char *agent_builtin_digest(const struct agent_request *req);

/* analyst: the kernel transforms its diagnosis calls for (transform.c),
 * [{"edit", "why"} | {"edit": "", "config", "why"} | {"note"}] in the
 * order to try them; [] where it leaves the kernel alone. New reference. */
json_t *agent_builtin_transforms(const struct agent_kernel *k);

/* tuner: the next step of the descent around the best passing candidate
 * (its launch config, on its source), or NULL when every move was tried;
 * new reference */
json_t *agent_builtin_descent(const struct agent_request *req);

#endif
