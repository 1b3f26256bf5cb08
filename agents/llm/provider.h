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

#include <jansson.h>

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

/* Appends at most max bytes of s, non-printable bytes as \xNN, "..." when cut. */
void llm_excerpt(struct strbuf *out, const char *s, size_t len, size_t max);

/*
 * Appends the server's own message from an error body ({"error":{"message":..}}
 * of both APIs, {"error":"..."}, {"detail":"..."}, {"message":"..."}); when the
 * body has none of these, an excerpt of it. Returns the number of bytes added.
 */
size_t llm_error_message(const char *body, size_t len, struct strbuf *msg);

/* Sets obj[key] to text; -1 with "llm: PROVIDER: the WHAT is not valid UTF-8". */
int llm_json_text(json_t *obj, const char *key, const char *text, const char *provider,
		  const char *what, struct strbuf *err);

/* Appends {"role": role, "content": text} to msgs; -1 with err as llm_json_text. */
int llm_json_message(json_t *msgs, const char *role, const char *text, const char *provider,
		     const char *what, struct strbuf *err);

/* Appends the request's earlier turns, then its user prompt, to msgs as messages. */
int llm_json_turns(json_t *msgs, const struct llm_request *req, const char *provider,
		   struct strbuf *err);

/* Appends root, compact, to body. */
void llm_json_body(const json_t *root, struct strbuf *body);

/* The max_tokens to send when the spec leaves it unset. */
#define LLM_DEFAULT_MAX_TOKENS 8192L

#endif
