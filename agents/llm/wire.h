/*
 * agents/llm/wire.h: what the providers share on the wire (internal to
 * agents/llm; wire.c): prompts as JSON messages, error bodies, excerpts.
 */
#ifndef KOPT_LLM_WIRE_H
#define KOPT_LLM_WIRE_H

#include "../llm.h"

#include <jansson.h>

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

#endif
