/*
 * agents/llm/anthropic.c: the Anthropic Messages API.
 *
 * Request:  POST {url}/v1/messages, x-api-key, anthropic-version: 2023-06-01
 *           {"model": M, "max_tokens": N, "system": TEXT, "temperature": T,
 *            "messages": [{"role": "user"|"assistant", "content": TEXT}, ...]}
 * Reply:    {"type": "message", "role": "assistant",
 *            "content": [{"type": "text", "text": TEXT}, ...],
 *            "stop_reason": "end_turn"|"max_tokens"|...,
 *            "usage": {"input_tokens": I, "output_tokens": O,
 *                      "cache_creation_input_tokens": C, "cache_read_input_tokens": R}}
 * Errors:   {"type": "error", "error": {"type": "overloaded_error", "message": ...}}
 *
 * Only text blocks make the reply's text (thinking and tool blocks are
 * skipped). Cached input tokens count as input tokens for the budget.
 *
 * Prompt caching: when the request says which leading bytes of the user
 * prompt are stable (llm_request.user_stable), the user turn is two text
 * blocks and the first carries "cache_control": {"type": "ephemeral"}: the
 * system prompt and that block are the prefix the API caches (for five
 * minutes; a prefix under the model's minimum, 1024 or 2048 tokens, is
 * simply not cached). Reads from it come back as cache_read_input_tokens.
 */
#define _POSIX_C_SOURCE 200809L
#include "provider.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* a text block; cached: the cache's breakpoint is at its end */
static int ant_block(json_t *content, const char *text, size_t n, bool cached, struct strbuf *err)
{
	json_t *b = json_pack("{s:s}", "type", "text"), *t = json_stringn(text, n);
	if (!t) {
		json_decref(b);
		strbuf_addstr(err, "llm: anthropic: the user prompt is not valid UTF-8");
		return -1;
	}
	json_object_set_new(b, "text", t);
	if (cached)
		json_object_set_new(b, "cache_control", json_pack("{s:s}", "type", "ephemeral"));
	json_array_append_new(content, b);
	return 0;
}

/* the earlier turns, then the user prompt as two blocks: its stable part,
 * marked as the end of the prefix to cache (the system prompt and the
 * context, the same in every round of a kernel), and the rest */
static int ant_cached_turns(json_t *msgs, const struct llm_request *req, struct strbuf *err)
{
	for (size_t i = 0; i < req->nturns; i++)
		if (llm_json_message(msgs, req->turns[i].role == LLM_ASSISTANT ? "assistant" : "user",
				     req->turns[i].text ? req->turns[i].text : "", "anthropic", "text of an earlier turn",
				     err) < 0)
			return -1;
	json_t *content = json_array();
	size_t n = strlen(req->user);
	if (ant_block(content, req->user, req->user_stable, true, err) < 0 ||
	    (n > req->user_stable && ant_block(content, req->user + req->user_stable, n - req->user_stable, false, err) < 0)) {
		json_decref(content);
		return -1;
	}
	json_array_append_new(msgs, json_pack("{s:s, s:o}", "role", "user", "content", content));
	return 0;
}

static int ant_build(const struct kopt_llm *cfg, const struct llm_request *req, long max_tokens,
		     struct strbuf *body, struct strbuf *err)
{
	json_t *root = json_object(), *msgs = json_array();
	int rc = -1;

	json_object_set_new(root, "model", json_string(cfg->model ? cfg->model : ""));
	json_object_set_new(root, "max_tokens", json_integer(max_tokens));
	if (req->system && llm_json_text(root, "system", req->system, "anthropic", "system prompt", err) < 0) {
		json_decref(msgs);
		goto out;
	}
	if (cfg->temperature >= 0)
		json_object_set_new(root, "temperature", json_real(cfg->temperature));
	json_object_set_new(root, "messages", msgs);
	if (req->user_stable == 0 || req->user_stable > strlen(req->user)) {
		if (llm_json_turns(msgs, req, "anthropic", err) < 0)
			goto out;
	} else if (ant_cached_turns(msgs, req, err) < 0) {
		goto out;
	}
	llm_json_body(root, body);
	rc = 0;
out:
	json_decref(root);
	return rc;
}

static void ant_headers(const char *key, struct strbuf *lines)
{
	strbuf_addstr(lines, "Content-Type: application/json\n");
	strbuf_addstr(lines, "Accept: application/json\n");
	strbuf_addstr(lines, "anthropic-version: 2023-06-01\n");
	if (key)
		strbuf_addf(lines, "x-api-key: %s\n", key);
}

/* a token count from usage: 0 when absent, -1 when of the wrong type */
static long ant_count(json_t *usage, const char *key)
{
	json_t *v = json_object_get(usage, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	return (long)json_integer_value(v);
}

static int ant_parse(const char *body, size_t len, struct llm_reply *out, struct strbuf *err)
{
	json_error_t jerr;
	json_t *root = json_loadb(body, len, 0, &jerr);
	int rc = -1;

	if (!root) {
		strbuf_addf(err, "llm: anthropic reply is not JSON (%s at byte %d): ", jerr.text, jerr.position);
		llm_excerpt(err, body, len, 120);
		return -1;
	}
	if (!json_is_object(root)) {
		strbuf_addstr(err, "llm: anthropic reply is not a JSON object");
		goto out;
	}
	json_t *type = json_object_get(root, "type");
	if (json_is_string(type) && strcmp(json_string_value(type), "error") == 0) {
		strbuf_addstr(err, "llm: anthropic reply carries an error: ");
		llm_error_message(body, len, err);
		goto out;
	}
	json_t *content = json_object_get(root, "content");
	if (!content) {
		strbuf_addstr(err, "llm: anthropic reply has no content");
		goto out;
	}
	if (!json_is_array(content)) {
		strbuf_addstr(err, "llm: anthropic reply: content is not an array");
		goto out;
	}
	json_t *stop = json_object_get(root, "stop_reason");
	if (json_is_string(stop)) {
		out->stop_reason = xstrdup(json_string_value(stop));
		out->truncated = strcmp(out->stop_reason, "max_tokens") == 0;
	}
	size_t i, ntext = 0;
	json_t *block;
	json_array_foreach(content, i, block) {
		json_t *bt = json_object_get(block, "type");
		if (!json_is_string(bt)) {
			strbuf_addf(err, "llm: anthropic reply: content[%zu] has no type", i);
			goto out;
		}
		if (strcmp(json_string_value(bt), "text") != 0)
			continue;
		json_t *t = json_object_get(block, "text");
		if (!json_is_string(t)) {
			strbuf_addf(err, "llm: anthropic reply: content[%zu].text is %s", i,
				    t ? "not a string" : "missing");
			goto out;
		}
		strbuf_add(&out->text, json_string_value(t), json_string_length(t));
		ntext++;
	}
	if (ntext == 0) {
		strbuf_addstr(err, "llm: anthropic reply has no text block in content");
		goto out;
	}
	json_t *usage = json_object_get(root, "usage");
	if (json_is_object(usage)) {
		long in = ant_count(usage, "input_tokens");
		long cw = ant_count(usage, "cache_creation_input_tokens");
		long cr = ant_count(usage, "cache_read_input_tokens");
		long o = ant_count(usage, "output_tokens");
		bool has_in = json_object_get(usage, "input_tokens") != NULL;
		bool has_out = json_object_get(usage, "output_tokens") != NULL;
		out->input_tokens = has_in && in >= 0 && cw >= 0 && cr >= 0 ? in + cw + cr : -1;
		out->cached_tokens = cr > 0 ? cr : 0;
		out->output_tokens = has_out && o >= 0 ? o : -1;
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

const struct llm_provider llm_anthropic = {
	.name = "anthropic",
	.default_url = "https://api.anthropic.com",
	.path = "/v1/messages",
	.build = ant_build,
	.headers = ant_headers,
	.parse = ant_parse,
};
