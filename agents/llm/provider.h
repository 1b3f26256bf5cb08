/*
 * agents/llm/provider.h: what llm.c needs from each API (internal to agents/llm).
 *
 * A provider builds the request body and header lines, and reads a success
 * body and an error body. It never sees the budget or the retry loop, and
 * llm.c scrubs the key from whatever a provider writes into returned strings.
 */
#ifndef KOPT_LLM_PROVIDER_H
#define KOPT_LLM_PROVIDER_H

#include "../llm.h"
#include "wire.h"

#include <jansson.h>

/* the wait in seconds before attempt + 1, after attempt failed (llm.c):
 * base_ms doubled attempt - 1 times, or the server's Retry-After where
 * longer, at most cap_ms */
double llm_backoff_s(long base_ms, long cap_ms, int attempt, double retry_after_s);

struct llm_provider {
	const char *name;        /* as in the spec: "openai", "anthropic" */
	const char *default_url; /* base URL when the spec gives none */
	const char *path;        /* appended to the base URL */
	/* appends the JSON body to body; -1 with err when a prompt cannot be encoded */
	int (*build)(const struct kopt_llm *cfg, const struct llm_request *req, long max_tokens,
		     struct strbuf *body, struct strbuf *err);
	/* appends "Name: value\n" header lines, the auth line when key is not NULL */
	void (*headers)(const char *key, struct strbuf *lines);
	/* reads a 2xx body into out (text, tokens, stop reason); -1 with err when malformed */
	int (*parse)(const char *body, size_t len, struct llm_reply *out, struct strbuf *err);
};

extern const struct llm_provider llm_openai;
extern const struct llm_provider llm_anthropic;

/* The max_tokens to send when the spec leaves it unset. */
#define LLM_DEFAULT_MAX_TOKENS 8192L

#endif
