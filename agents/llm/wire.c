/*
 * agents/llm/wire.c: what the providers (openai.c, anthropic.c) share on
 * the wire: prompts encoded as JSON messages, an error body's message,
 * excerpts of a body for an error line. llm.c reads error bodies with it
 * too; it calls nothing of llm.c.
 */
#include <config.h>

#include "wire.h"

#include <stdlib.h>
#include <string.h>

void llm_excerpt(struct strbuf *out, const char *s, size_t len, size_t max)
{
	size_t n = len < max ? len : max;
	if (len == 0) {
		strbuf_addstr(out, "(empty body)");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n' || c == '\r' || c == '\t')
			strbuf_addch(out, ' ');
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(out, "\\x%02x", c);
		else
			strbuf_addch(out, c);
	}
	if (n < len)
		strbuf_addstr(out, "...");
}

int llm_json_text(json_t *obj, const char *key, const char *text, const char *provider,
		  const char *what, struct strbuf *err)
{
	json_t *s = json_string(text);
	if (!s) {
		strbuf_addf(err, "llm: %s: the %s is not valid UTF-8", provider, what);
		return -1;
	}
	json_object_set_new(obj, key, s);
	return 0;
}

int llm_json_message(json_t *msgs, const char *role, const char *text, const char *provider,
		     const char *what, struct strbuf *err)
{
	json_t *m = json_object();
	json_object_set_new(m, "role", json_string(role));
	if (llm_json_text(m, "content", text, provider, what, err) < 0) {
		json_decref(m);
		return -1;
	}
	json_array_append_new(msgs, m);
	return 0;
}

int llm_json_turns(json_t *msgs, const struct llm_request *req, const char *provider,
		   struct strbuf *err)
{
	for (size_t i = 0; i < req->nturns; i++) {
		const struct llm_turn *t = &req->turns[i];
		if (llm_json_message(msgs, t->role == LLM_ASSISTANT ? "assistant" : "user", t->text ? t->text : "",
				      provider, "text of an earlier turn", err) < 0)
			return -1;
	}
	return llm_json_message(msgs, "user", req->user, provider, "user prompt", err);
}

void llm_json_body(const json_t *root, struct strbuf *body)
{
	char *s = json_dumps(root, JSON_COMPACT);
	if (!s)
		kopt_die("out of memory encoding a request");
	strbuf_addstr(body, s);
	free(s);
}

size_t llm_error_message(const char *body, size_t len, struct strbuf *msg)
{
	size_t before = msg->len;
	json_t *root = json_loadb(body, len, 0, NULL);
	const char *text = NULL, *type = NULL;
	if (json_is_object(root)) {
		json_t *e = json_object_get(root, "error");
		if (json_is_object(e)) {
			json_t *m = json_object_get(e, "message"), *t = json_object_get(e, "type");
			text = json_is_string(m) ? json_string_value(m) : NULL;
			type = json_is_string(t) ? json_string_value(t) : NULL;
		} else if (json_is_string(e)) {
			text = json_string_value(e);
		}
		if (!text) {
			json_t *d = json_object_get(root, "detail"), *m = json_object_get(root, "message");
			text = json_is_string(d) ? json_string_value(d) : json_is_string(m) ? json_string_value(m) : NULL;
		}
	}
	if (text) {
		llm_excerpt(msg, text, strlen(text), 300);
		if (type)
			strbuf_addf(msg, " (%s)", type);
	} else {
		llm_excerpt(msg, body, len, 200);
	}
	json_decref(root);
	return msg->len - before;
}
