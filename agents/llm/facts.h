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
/* "- c3, tuner: descent x-up (...): pass, 1.189x, 39.27 us"; the reason of
 * a failure as llm_reason gives it (scope: the spec file); caller frees */
char *llm_attempt_line(const struct agent_try *t, const char *scope);
/* A gate's reason as a prompt may show it: on one line, at most max bytes
 * (then "..."), the value of every variable of koptmake's environment
 * whose name says it holds a secret (runtime/sandbox.c's rule: its base64
 * and halves too, as llm_scrub takes out a key) as "[redacted]", and every
 * absolute path outside the folder of the spec file scope as "<path>" (the
 * worker's scratch folder and caches, the user's home). A reason is text
 * that a candidate can make the worker say: what it read would leave
 * through it. Caller frees. */
char *llm_reason(const char *reason, const char *scope, size_t max);
/* the planner's text when it is built in: its ranked moves; caller frees */
char *llm_builtin_strategy(const struct llm_run *run);
/* appends the prompt of a round to user: the context, then the round's
 * part (the best, the attempts, the notes, the strategy, fix to repair) */
void llm_round_prompt(const struct agent_request *req, const char *context, const char *strategy,
		      const struct agent_try *fix, long max_tokens, struct strbuf *user);

#endif
