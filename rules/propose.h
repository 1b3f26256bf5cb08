/*
 * rules/propose.h: a proposal's result as the other rules read it, and
 * what the propose rule shares (rules/propose.c).
 */
#ifndef KOPT_RULES_PROPOSE_H
#define KOPT_RULES_PROPOSE_H

#include <jansson.h>
#include <stdbool.h>

#include "../agents/agent.h"
#include "plan.h"

/* A proposal's result, as the propose rule writes it and the others read
 * it (rules/propose.c). */
struct rule_proposal {
	bool done;                   /* the proposal is done; else nothing below is known */
	bool none;                   /* the agent had no candidate: reason says why */
	const char *reason;          /* why none; "" for a candidate */
	const json_t *json;          /* the candidate's JSON (borrowed from the result), or NULL */
	struct agent_candidate cand; /* the candidate, read from json */
};
void rule_proposal_read(struct dag *d, const struct rule_cand *c, struct rule_proposal *p);
void rule_memo_free(struct rule_memo *m);

/* the stable part of a proposal without a candidate (verify skips it); new reference */
json_t *rule_no_candidate(void);

/* the kernel as every agent sees it: its model, name, heuristic, config,
 * profile row and the device's roofs (the profile's); the rest zero, for
 * the caller to add (a proposal's arguments and device, a screen's source
 * and class) */
void rule_agent_kernel(struct dag *d, struct rule_kernel *k, struct agent_kernel *ak);

/* the kernel's source, from the object its capture stored; empty when absent */
void rule_kernel_source(struct dag *d, struct rule_kernel *k, struct strbuf *out);

/* a model's "LLM use:" line for its report (its candidates' calls,
 * tokens and, at the spec's prices, money); nothing without LLM calls */
void rule_llm_usage(struct dag *d, const struct rule_model *dm, struct strbuf *md);

/* the agents' long-term memory file in the cache folder; caller frees */
char *rule_memory_path(struct dag *d);
/* the scope of this build's lessons in it: the spec file's absolute path; caller frees */
char *rule_memory_scope(struct dag *d);

#endif
