/*
 * agents/llm/run.h: the roles' backends, and one proposal's calls of the
 * models: the budget they draw on and what they used (internal to
 * agents/llm; run.c).
 */
#ifndef KOPT_LLM_RUN_H
#define KOPT_LLM_RUN_H

#include "../candidate.h"
#include "../llm.h"

#include <jansson.h>
#include <stdbool.h>

/* the coder's llm() of req's agents */
const struct kopt_llm *llm_coder_cfg(const struct agent_request *req);

/* o's string member key, or NULL */
static inline const char *llm_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* one proposal's calls: the kernel's budget, as the trajectory spent it
 * before them, and their usage per model */
struct llm_run {
	const struct agent_request *req;
	const struct llm_builtin *builtin; /* the built-in roles it stands on */
	struct llm_budget b, before;
	double t0;
	json_t *usage; /* [{"model", "calls", "in", "cached", "out"}] */
};

void llm_run_init(struct llm_run *run, const struct agent_request *req, const struct llm_builtin *builtin);
/* adds reply r of a call to cfg's model to the run's usage */
void llm_run_note(struct llm_run *run, const struct kopt_llm *cfg, const struct llm_reply *r);
/* c records what the proposal's calls cost (when it made any): "llm" */
void llm_run_stamp(struct llm_run *run, json_t *c);
void llm_run_release(struct llm_run *run);
/* one call of role r; its text appended to text. 0, or -1 with err */
int llm_run_ask(struct llm_run *run, enum kopt_role r, const char *system, const char *user, size_t stable,
		struct strbuf *text, struct strbuf *err);

#endif
