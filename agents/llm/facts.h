/*
 * agents/llm/facts.h: what the coder's prompts tell the model: the
 * kernel's facts (the context) and the search so far (a round's part);
 * agents/llm/prompt.c renders them (internal to agents/llm; facts.c).
 */
#ifndef KOPT_LLM_FACTS_H
#define KOPT_LLM_FACTS_H

#include "run.h"

/* a launch config as JSON text, its keys in Inductor's order; caller frees */
char *llm_config_json(const json_t *config);
/* the analyst's text: candidate 0's, else the built-in's or, with an LLM
 * analyst and call, its reply (one call, for candidate 0); caller frees */
char *llm_diagnosis_of(struct llm_run *run, bool call);
/* the context of the kernel's prompts: candidate 0's, else rendered now;
 * caller frees */
char *llm_context_of(struct llm_run *run, const char *diagnosis);
/* "- c3, tuner: descent x-up (...): pass, 1.189x, 39.27 us"; caller frees */
char *llm_attempt_line(const struct agent_try *t);
/* the planner's text when it is built in: its ranked moves; caller frees */
char *llm_builtin_strategy(const struct agent_request *req);
/* appends the prompt of a round to user: the context, then the round's
 * part (the best, the attempts, the notes, the strategy, fix to repair) */
void llm_round_prompt(const struct agent_request *req, const char *context, const char *strategy,
		      const struct agent_try *fix, long max_tokens, struct strbuf *user);

#endif
