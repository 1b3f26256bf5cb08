/*
 * agents/llm/openai.c: the OpenAI-compatible chat-completions API.
 *
 * Request:  POST {url}/chat/completions
 *           {"model": M, "messages": [{"role": "system"|"user"|"assistant",
 *            "content": TEXT}, ...], "max_tokens": N, "temperature": T,
 *            "stream": false}
 * Reply:    {"choices": [{"message": {"role": "assistant", "content": TEXT},
 *            "finish_reason": "stop"|"length"|...}, ...],
 *            "usage": {"prompt_tokens": I, "completion_tokens": O, ...}}
 *
 *            usage.prompt_tokens_details.cached_tokens: of the prompt's tokens,
 *            those the server read from its prefix cache (where it says)
 *
 * vLLM, llama.cpp's server, Ollama and hosted services speak this dialect.
 * Prompt caching needs nothing in the request: OpenAI caches the longest
 * prefix it has seen (from 1024 tokens), vLLM with prefix caching and
 * llama.cpp's server with cache_prompt do the same, so the coder sends the
 * prompt's stable part first (agents/llm/prompt.c) and this file sends the
 * user prompt as one message.
 * OpenAI's own endpoint wants max_completion_tokens (its reasoning models
 * refuse max_tokens); the other servers know only max_tokens.
 */
#define _POSIX_C_SOURCE 200809L
#include "provider.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static int oai_build(const struct kopt_llm *cfg, const struct llm_request *req, long max_tokens,
		     struct strbuf *body, struct strbuf *err)
{
	json_t *root = json_object(), *msgs = json_array();
	int rc = -1;

	json_object_set_new(root, "model", json_string(cfg->model ? cfg->model : ""));
	json_object_set_new(root, "messages", msgs);
	if (req->system && llm_json_message(msgs, "system", req->system, "openai", "system prompt", err) < 0)
		goto out;
	if (llm_json_turns(msgs, req, "openai", err) < 0)
		goto out;
	bool openai_proper = !cfg->url || strstr(cfg->url, "api.openai.com");
	json_object_set_new(root, openai_proper ? "max_completion_tokens" : "max_tokens",
			    json_integer(max_tokens));
	if (cfg->temperature >= 0)
		json_object_set_new(root, "temperature", json_real(cfg->temperature));
	json_object_set_new(root, "stream", json_false());

	llm_json_body(root, body);
	rc = 0;
out:
	json_decref(root);
	return rc;
}

static void oai_headers(const char *key, struct strbuf *lines)
{
	strbuf_addstr(lines, "Content-Type: application/json\n");
	strbuf_addstr(lines, "Accept: application/json\n");
	if (key)
		strbuf_addf(lines, "Authorization: Bearer %s\n", key);
}

/* a token count from usage, or -1 when absent or not a non-negative integer */
static long oai_count(json_t *usage, const char *key)
{
	json_t *v = json_object_get(usage, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	return (long)json_integer_value(v);
}

/* content as a string, or as an array of parts {"type": "text", "text": ...} */
static int oai_content(json_t *content, struct strbuf *text)
{
	if (json_is_string(content)) {
		strbuf_add(text, json_string_value(content), json_string_length(content));
		return 0;
	}
	if (!json_is_array(content))
		return -1;
	size_t i;
	json_t *part;
	int n = 0;
	json_array_foreach(content, i, part) {
		json_t *t = json_object_get(part, "text");
		if (json_is_string(t)) {
			strbuf_add(text, json_string_value(t), json_string_length(t));
			n++;
		}
	}
	return n ? 0 : -1;
}

static int oai_parse(const char *body, size_t len, struct llm_reply *out, struct strbuf *err)
{
	json_error_t jerr;
	json_t *root = json_loadb(body, len, 0, &jerr);
	int rc = -1;

	if (!root) {
		strbuf_addf(err, "llm: openai reply is not JSON (%s at byte %d): ", jerr.text, jerr.position);
		llm_excerpt(err, body, len, 120);
		return -1;
	}
	if (!json_is_object(root)) {
		strbuf_addstr(err, "llm: openai reply is not a JSON object");
		goto out;
	}
	if (json_object_get(root, "error")) {
		strbuf_addstr(err, "llm: openai reply carries an error: ");
		llm_error_message(body, len, err);
		goto out;
	}
	json_t *choices = json_object_get(root, "choices");
	if (!choices) {
		strbuf_addstr(err, "llm: openai reply has no choices");
		goto out;
	}
	if (!json_is_array(choices)) {
		strbuf_addstr(err, "llm: openai reply: choices is not an array");
		goto out;
	}
	if (json_array_size(choices) == 0) {
		strbuf_addstr(err, "llm: openai reply: choices is empty");
		goto out;
	}
	json_t *c0 = json_array_get(choices, 0);
	json_t *msg = json_object_get(c0, "message");
	if (!json_is_object(msg)) {
		strbuf_addf(err, "llm: openai reply: choices[0].message is %s",
			    msg ? "not an object" : "missing");
		goto out;
	}
	json_t *fin = json_object_get(c0, "finish_reason");
	if (json_is_string(fin)) {
		out->stop_reason = xstrdup(json_string_value(fin));
		out->truncated = strcmp(out->stop_reason, "length") == 0;
	}
	json_t *content = json_object_get(msg, "content");
	if (!content || json_is_null(content)) {
		json_t *refusal = json_object_get(msg, "refusal");
		if (json_is_string(refusal)) {
			strbuf_addstr(err, "llm: openai reply is a refusal: ");
			llm_excerpt(err, json_string_value(refusal), json_string_length(refusal), 200);
		} else {
			strbuf_addstr(err, "llm: openai reply has no choices[0].message.content");
		}
		goto out;
	}
	if (oai_content(content, &out->text) < 0) {
		strbuf_addstr(err, "llm: openai reply: choices[0].message.content is not text");
		goto out;
	}
	json_t *usage = json_object_get(root, "usage");
	if (json_is_object(usage)) {
		out->input_tokens = oai_count(usage, "prompt_tokens");
		out->output_tokens = oai_count(usage, "completion_tokens");
		long c = oai_count(json_object_get(usage, "prompt_tokens_details"), "cached_tokens");
		out->cached_tokens = c > 0 ? c : 0;
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

const struct llm_provider llm_openai = {
	.name = "openai",
	.default_url = "https://api.openai.com/v1",
	.path = "/chat/completions",
	.build = oai_build,
	.headers = oai_headers,
	.parse = oai_parse,
};
