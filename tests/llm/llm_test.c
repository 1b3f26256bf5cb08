/*
 * tests/llm/llm_test.c: the LLM clients against tests/llm/replay_server.py,
 * a test double on 127.0.0.1 that replays recorded OpenAI and Anthropic
 * replies (good, 429, 5xx, malformed, truncated, slow, echoing the key).
 *
 * Each scenario starts its own server (fork/exec), reads the port from its
 * first line, runs the client, checks the result and the request log, and
 * stops the server. Backoffs are 1 ms and capped at 200 ms to keep it fast
 * (one case waits KOPT_LLM_BACKOFF_MS=300 against a port where nothing
 * listens).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "../../common/http.h"
#include "../../agents/llm.h"
#include "../../agents/llm/provider.h"
#include "../../agents/llm/wire.h"
#include "../tap.h"
#include "replay.h"

static char *prompt_user;

#ifndef KOPT_TEST_PYTHON
#define KOPT_TEST_PYTHON ""
#endif

#define SECRET "sk-test-SECRET-1234"
#define KERNEL "triton_per_fused__softmax_exp_prepare_softmax_online_sub_4"

static char *url_of(const struct server *s, const char *provider)
{
	return xasprintf("%s%s", s->url, strcmp(provider, "openai") == 0 ? "/v1" : "");
}

static struct kopt_llm cfg_for(const char *provider, char *url, const char *key_env)
{
	struct kopt_llm c = {
		.provider = (char *)provider,
		.model = (char *)(strcmp(provider, "openai") == 0 ? "gpt-4o" : "claude-sonnet-4-20250514"),
		.url = url,
		.key_env = (char *)key_env,
		.temperature = 0.2,
		.max_tokens = 4096,
	};
	return c;
}

static struct llm_request req_fast(void)
{
	struct llm_request r = {
		.system = llm_prompt_system(),
		.user = prompt_user,
		.timeout_s = 5,
		.connect_timeout_s = 2,
		.max_attempts = 4,
		.backoff_ms = 1,
		.backoff_max_ms = 200,
	};
	return r;
}

/* what one scenario leaves behind */
struct run {
	int rc;
	struct llm_reply reply;
	struct strbuf err;
	json_t *requests;
	double elapsed;
};

static void run_release(struct run *r)
{
	llm_reply_release(&r->reply);
	strbuf_release(&r->err);
	json_decref(r->requests);
}

/* the client's estimate of a request's prompt: its characters / 4 + 8 */
static long prompt_estimate(const struct llm_request *req)
{
	return (long)(strlen(req->user) + strlen(req->system)) / 4 + 8;
}

/* a budget of max_tokens of which used are spent, calls unlimited */
static struct llm_budget tokens_left(long max_tokens, long used)
{
	struct llm_budget b;
	llm_budget_init(&b, NULL);
	b.max_tokens = max_tokens;
	b.tokens = used;
	return b;
}

/* runs one llm_complete against a fresh server for scenario */
static int run_scenario(struct run *r, const char *scenario, const char *provider,
			const struct llm_request *req, struct llm_budget *budget, const char *key_env)
{
	struct server s;
	llm_reply_init(&r->reply);
	strbuf_init(&r->err);
	r->requests = NULL;
	r->rc = -2;
	if (server_start(&s, scenario) != 0) {
		tap_diag("cannot start the replay server for %s", scenario);
		r->requests = json_array();
		return -1;
	}
	char *url = url_of(&s, provider);
	struct kopt_llm cfg = cfg_for(provider, url, key_env);
	/* a wall budget counts from the call: the replay server's start (a
	 * Python process, slow on a loaded machine) is not the kernel's work */
	if (budget)
		budget->start = kopt_now();
	double t0 = kopt_now();
	r->rc = llm_complete(&cfg, req, budget, &r->reply, &r->err);
	r->elapsed = kopt_now() - t0;
	server_stop(&s);
	r->requests = server_requests(&s);
	free(url);
	if (r->err.len)
		tap_diag("%s: %s", scenario, r->err.buf);
	return 0;
}

static int has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

/* ---- scenarios ---- */

static void t_openai_ok(void)
{
	struct run r;
	struct llm_request req = req_fast();
	struct llm_budget b;
	llm_budget_init(&b, NULL);
	run_scenario(&r, "openai_ok", "openai", &req, &b, "KOPT_TEST_KEY");
	TAP_IS_INT(r.rc, 0, "openai: good reply accepted");
	TAP_IS_INT(r.reply.input_tokens, 1873, "openai: input tokens from usage.prompt_tokens");
	TAP_IS_INT(r.reply.output_tokens, 912, "openai: output tokens from usage.completion_tokens");
	TAP_OK(!r.reply.usage_estimated && r.reply.attempts == 1 && r.reply.status == 200,
	       "openai: one attempt, status 200, usage not estimated");
	TAP_IS_STR(r.reply.stop_reason, "stop", "openai: finish_reason read");
	TAP_OK(b.calls == 1 && b.tokens == 1873 + 912, "openai: budget charged one call and %ld tokens", b.tokens);

	struct strbuf k = STRBUF_INIT, e = STRBUF_INIT;
	int x = llm_extract_kernel(r.reply.text.buf, KERNEL, &k, &e);
	TAP_OK(x == 0 && has(k.buf, "def " KERNEL "(") && has(k.buf, "tmp15 = tmp8 * (1.0 / tmp12)") &&
	       strncmp(k.buf, "import triton\n", 14) == 0 && !has(k.buf, "```"),
	       "openai: kernel module extracted from the reply");

	json_t *q = json_array_get(r.requests, 0);
	const char *auth = req_header(q, "Authorization");
	json_t *body = json_loads(json_string_value(json_object_get(q, "body")), 0, NULL);
	json_t *msgs = json_object_get(body, "messages");
	TAP_OK(json_array_size(r.requests) == 1 &&
	       strcmp(json_string_value(json_object_get(q, "path")), "/v1/chat/completions") == 0 &&
	       has(auth, "Bearer " SECRET) && has(req_header(q, "Content-Type"), "application/json"),
	       "openai: POST /v1/chat/completions with Authorization: Bearer");
	TAP_OK(json_is_object(body) && strcmp(json_string_value(json_object_get(body, "model")), "gpt-4o") == 0 &&
	       json_array_size(msgs) == 2 &&
	       strcmp(json_string_value(json_object_get(json_array_get(msgs, 0), "role")), "system") == 0 &&
	       strcmp(json_string_value(json_object_get(json_array_get(msgs, 1), "role")), "user") == 0 &&
	       json_integer_value(json_object_get(body, "max_tokens")) == 4096 &&
	       json_object_get(body, "temperature") && json_is_false(json_object_get(body, "stream")),
	       "openai: body has model, system and user messages, max_tokens, temperature");
	TAP_OK(!has(json_string_value(json_object_get(q, "body")), SECRET), "openai: the key is not in the body");
	json_decref(body);
	strbuf_release(&k);
	strbuf_release(&e);
	run_release(&r);
}

static void t_anthropic_ok(void)
{
	struct run r;
	struct llm_request req = req_fast();
	struct llm_turn turns[] = {
		{ LLM_USER, "Speed up the kernel." },
		{ LLM_ASSISTANT, "```python\ndef f():\n    pass\n```" },
	};
	req.turns = turns;
	req.nturns = 2;
	run_scenario(&r, "anthropic_ok", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_IS_INT(r.rc, 0, "anthropic: good reply accepted");
	TAP_OK(r.reply.input_tokens == 1542 && r.reply.output_tokens == 687,
	       "anthropic: tokens from usage.input_tokens and output_tokens");
	TAP_IS_STR(r.reply.stop_reason, "end_turn", "anthropic: stop_reason read");
	struct strbuf k = STRBUF_INIT, e = STRBUF_INIT;
	TAP_OK(llm_extract_kernel(r.reply.text.buf, "triton_poi_fused_convolution_0", &k, &e) == 0 &&
	       has(k.buf, "eviction_policy='evict_first'"), "anthropic: kernel module extracted");
	json_t *q = json_array_get(r.requests, 0);
	json_t *body = json_loads(json_string_value(json_object_get(q, "body")), 0, NULL);
	json_t *msgs = json_object_get(body, "messages");
	TAP_OK(strcmp(json_string_value(json_object_get(q, "path")), "/v1/messages") == 0 &&
	       has(req_header(q, "x-api-key"), SECRET) && !req_header(q, "Authorization") &&
	       has(req_header(q, "anthropic-version"), "2023-06-01"),
	       "anthropic: POST /v1/messages with x-api-key and anthropic-version");
	TAP_OK(json_is_string(json_object_get(body, "system")) && json_array_size(msgs) == 3 &&
	       strcmp(json_string_value(json_object_get(json_array_get(msgs, 1), "role")), "assistant") == 0 &&
	       strcmp(json_string_value(json_object_get(json_array_get(msgs, 2), "role")), "user") == 0 &&
	       json_integer_value(json_object_get(body, "max_tokens")) == 4096,
	       "anthropic: top-level system, prior turns then the user turn, max_tokens");
	json_decref(body);
	strbuf_release(&k);
	strbuf_release(&e);
	run_release(&r);
	/* a usage of 0 output tokens is 0, not unknown (nothing estimated) */
	run_scenario(&r, "anthropic_zero_out", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.output_tokens == 0 && r.reply.input_tokens == 12 && !r.reply.usage_estimated,
	       "anthropic: output_tokens 0 is 0 tokens, not an unknown count (%ld)", r.reply.output_tokens);
	run_release(&r);
	run_scenario(&r, "openai_zero_out", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.output_tokens == 0 && r.reply.input_tokens == 12 && !r.reply.usage_estimated,
	       "openai: completion_tokens 0 is 0 tokens, not an unknown count (%ld)", r.reply.output_tokens);
	run_release(&r);
	/* and a usage of 0 input tokens (a cached prompt, a proxy's count) is
	 * 0, not unknown */
	run_scenario(&r, "openai_zero_in", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.input_tokens == 0 && r.reply.output_tokens == 5 && !r.reply.usage_estimated,
	       "openai: prompt_tokens 0 is 0 tokens, not an unknown count (%ld)", r.reply.input_tokens);
	run_release(&r);
	run_scenario(&r, "anthropic_zero_in", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.input_tokens == 0 && r.reply.output_tokens == 5 && !r.reply.usage_estimated,
	       "anthropic: input_tokens 0 is 0 tokens, not an unknown count (%ld)", r.reply.input_tokens);
	run_release(&r);
	/* half a usage: the count given is kept, the other estimated (the
	 * prompt's estimate; the reply's characters / 4 + 1), and said so */
	run_scenario(&r, "openai_only_prompt", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.usage_estimated && r.reply.input_tokens == 12 && r.reply.output_tokens == 27 / 4 + 1,
	       "openai: prompt_tokens alone: kept, the reply's tokens estimated (%ld, %ld)", r.reply.input_tokens,
	       r.reply.output_tokens);
	run_release(&r);
	run_scenario(&r, "openai_only_completion", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.usage_estimated && r.reply.output_tokens == 7 && r.reply.input_tokens > 12,
	       "openai: completion_tokens alone: kept, the prompt's tokens estimated (%ld, %ld)", r.reply.input_tokens,
	       r.reply.output_tokens);
	run_release(&r);
	/* anthropic's prompt count is input_tokens plus the cache's two: with
	 * input_tokens absent, or not a count, the cache's counts alone are
	 * not the prompt's, which is estimated */
	run_scenario(&r, "anthropic_only_output", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.usage_estimated && r.reply.output_tokens == 7 && r.reply.input_tokens > 12,
	       "anthropic: output_tokens alone: kept, the prompt's tokens estimated (%ld, %ld)", r.reply.input_tokens,
	       r.reply.output_tokens);
	run_release(&r);
	/* a usage without the cache's fields (a proxy's, an older API's):
	 * none read from the cache, the prompt's count as given */
	run_scenario(&r, "anthropic_no_cache", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && !r.reply.usage_estimated && r.reply.input_tokens == 12 && r.reply.output_tokens == 5 &&
		       r.reply.cached_tokens == 0,
	       "anthropic: no cache fields in the usage: input_tokens as given, nothing cached (%ld)", r.reply.input_tokens);
	run_release(&r);
	run_scenario(&r, "anthropic_bad_in_cached", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.usage_estimated && r.reply.output_tokens == 7 && r.reply.input_tokens > 12 &&
		       r.reply.input_tokens != 99 && r.reply.input_tokens != 100,
	       "anthropic: input_tokens not a count beside 100 read from the cache: the prompt's tokens estimated (%ld)",
	       r.reply.input_tokens);
	run_release(&r);
}

static void t_retries(void)
{
	struct run r;
	struct llm_request req = req_fast();

	run_scenario(&r, "openai_429_then_ok", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.attempts == 2, "429 with Retry-After then success: 2 attempts");
	TAP_OK(r.elapsed >= 0.18 && r.elapsed < 0.9,
	       "Retry-After honoured up to the cap (waited %.2f s of 1 s, cap 0.2 s)", r.elapsed);
	run_release(&r);

	run_scenario(&r, "openai_500_then_ok", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.attempts == 3 && json_array_size(r.requests) == 3,
	       "500 twice then success: 3 attempts");
	run_release(&r);

	req.max_attempts = 3;
	run_scenario(&r, "anthropic_529_forever", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.attempts == 3 && json_array_size(r.requests) == 3 &&
	       has(r.err.buf, "http 529") && has(r.err.buf, "Overloaded") && has(r.err.buf, "after 3 attempts"),
	       "5xx until the retries run out: a clean error after 3 attempts");
	run_release(&r);

	req.max_attempts = 4;
	run_scenario(&r, "openai_close_then_ok", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.attempts == 2, "connection closed without a reply is retried");
	run_release(&r);

	run_scenario(&r, "openai_400", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.attempts == 1 && r.reply.status == 400 &&
	       has(r.err.buf, "http 400") && has(r.err.buf, "maximum context length"),
	       "400 is not retried; the server's message is shown");
	run_release(&r);

	/* the edges of what is retried: 408, 429 and 500 to 599, nothing else */
	static const struct { const char *script; int retried; } edges[] = {
		{ "openai_407_then_ok", 0 }, { "openai_408_then_ok", 1 }, { "openai_409_then_ok", 0 },
		{ "openai_499_then_ok", 0 }, { "openai_599_then_ok", 1 }, { "openai_600_then_ok", 0 },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
		run_scenario(&r, edges[i].script, "openai", &req, NULL, "KOPT_TEST_KEY");
		bool ok = edges[i].retried ? r.rc == 0 && r.reply.attempts == 2 : r.rc == -1 && r.reply.attempts == 1;
		if (ok)
			right++;
		else
			tap_diag("%s: rc %d after %d attempts", edges[i].script, r.rc, r.reply.attempts);
		run_release(&r);
	}
	TAP_IS_INT(right, (int)(sizeof edges / sizeof edges[0]),
		   "retried: 408 and 599, then the reply; not retried: 407, 409, 499 and 600");
}

static void t_malformed(void)
{
	struct run r;
	struct llm_request req = req_fast();
	struct llm_budget b;
	llm_budget_init(&b, NULL);

	run_scenario(&r, "openai_not_json", "openai", &req, &b, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.attempts == 1 && has(r.err.buf, "openai reply is not JSON"),
	       "malformed JSON: clean error, no retry");
	TAP_OK(b.calls == 1 && b.tokens > 0, "malformed JSON still costs the call and the prompt's tokens");
	run_release(&r);

	run_scenario(&r, "openai_html_200", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "not JSON") && has(r.err.buf, "502 Bad Gateway"),
	       "an HTML page with status 200: clean error with an excerpt");
	run_release(&r);

	run_scenario(&r, "openai_no_choices", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "has no choices"), "missing choices: clean error");
	run_release(&r);

	run_scenario(&r, "openai_wrong_type", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "content is not text"), "content of the wrong type: clean error");
	run_release(&r);

	run_scenario(&r, "anthropic_wrong_type", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "content is not an array"),
	       "anthropic content of the wrong type: clean error");
	run_release(&r);

	req.max_attempts = 2;
	run_scenario(&r, "openai_truncated_forever", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.attempts == 2 && has(r.err.buf, "truncated response") &&
	       has(r.err.buf, "after 300 body bytes"), "truncated body: retried, then a clean error");
	run_release(&r);

	run_scenario(&r, "openai_truncated_then_ok", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.attempts == 2, "truncated body once, then success");
	run_release(&r);

	req.max_attempts = 2;
	req.timeout_s = 0.3;
	run_scenario(&r, "openai_slow", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.attempts == 2 && has(r.err.buf, "timed out after 0.3 s") && r.elapsed < 2.0,
	       "slow reply past the timeout: clean timeout error after %.2f s", r.elapsed);
	run_release(&r);

	/* the wall budget runs out during the retries: the limit is named */
	struct llm_budget wb;
	struct kopt_agents wa = { .llm_calls = 32, .tokens = -1, .wall_s = 0.5 };
	llm_budget_init(&wb, &wa);
	req.max_attempts = 5;
	run_scenario(&r, "openai_slow", "openai", &req, &wb, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.attempts >= 1 && r.reply.attempts < 5 && has(r.err.buf, "timed out") &&
	       has(r.err.buf, "; llm budget: ") && has(r.err.buf, "s of wall time used of 0.5 s") && r.elapsed < 1.0,
	       "wall budget runs out during the retries: stopped after %d attempts, %.2f s",
	       r.reply.attempts, r.elapsed);
	run_release(&r);
	req.max_attempts = 2;

	/* a port with nothing listening: start a server, stop it, then call it */
	struct server s;
	if (server_start(&s, "openai_ok") == 0) {
		server_stop(&s);
		char *url = url_of(&s, "openai");
		struct kopt_llm cfg = cfg_for("openai", url, "KOPT_TEST_KEY");
		struct llm_reply rep;
		struct strbuf err = STRBUF_INIT;
		llm_reply_init(&rep);
		int rc = llm_complete(&cfg, &req, NULL, &rep, &err);
		tap_diag("refused: %s", err.buf);
		TAP_OK(rc == -1 && rep.attempts == 2 && rep.status == 0 && has(err.buf, "cannot connect"),
		       "connection refused: retried, then a clean error");
		llm_reply_release(&rep);
		strbuf_release(&err);
		free(url);
	} else {
		TAP_OK(0, "connection refused: could not start the server");
	}
}

static void t_budget(void)
{
	struct run r;
	struct llm_request req = req_fast();
	struct llm_budget b;
	struct kopt_agents a = { .llm_calls = 2, .tokens = -1, .wall_s = -1 };

	/* by calls: two served, the third refused before the network */
	struct server s;
	server_start(&s, "openai_ok_x3");
	char *url = url_of(&s, "openai");
	struct kopt_llm cfg = cfg_for("openai", url, "KOPT_TEST_KEY");
	struct llm_reply rep;
	struct strbuf err = STRBUF_INIT;
	llm_reply_init(&rep);
	llm_budget_init(&b, &a);
	int rc1 = llm_complete(&cfg, &req, &b, &rep, &err);
	int rc2 = llm_complete(&cfg, &req, &b, &rep, &err);
	int rc3 = llm_complete(&cfg, &req, &b, &rep, &err);
	server_stop(&s);
	json_t *q = server_requests(&s);
	TAP_OK(rc1 == 0 && rc2 == 0 && rc3 == -1 && rep.attempts == 0 && json_array_size(q) == 2,
	       "budget by calls: the third call is refused without a request");
	TAP_IS_STR(err.buf, "llm budget: 2 calls used of 2", "budget by calls: message names the limit");
	json_decref(q);
	strbuf_release(&err);
	llm_reply_release(&rep);
	free(url);

	/* by tokens: 2785 of 4000 used by the first reply; the second would not fit */
	a.llm_calls = 32;
	a.tokens = 4000;
	llm_budget_init(&b, &a);
	server_start(&s, "openai_ok_x3");
	url = url_of(&s, "openai");
	cfg = cfg_for("openai", url, "KOPT_TEST_KEY");
	strbuf_init(&err);
	rc1 = llm_complete(&cfg, &req, &b, &rep, &err);
	rc2 = llm_complete(&cfg, &req, &b, &rep, &err);
	server_stop(&s);
	q = server_requests(&s);
	TAP_OK(rc1 == 0 && rc2 == -1 && b.tokens == 2785 && json_array_size(q) == 1,
	       "budget by tokens: the second call is refused");
	TAP_OK(strncmp(err.buf, "llm budget: 2785 tokens used of 4000, this call needs about ", 60) == 0,
	       "budget by tokens: message names the limit (%s)", err.buf);
	json_decref(q);
	strbuf_reset(&err);
	b.tokens = 4000;
	TAP_OK(llm_complete(&cfg, &req, &b, &rep, &err) == -1 &&
	       strcmp(err.buf, "llm budget: 4000 tokens used of 4000") == 0, "budget by tokens: all used");
	strbuf_release(&err);
	free(url);

	/* the reply's max_tokens is clamped to what the budget has left */
	llm_budget_init(&b, &a);
	b.tokens = 4000 - 1500 - 1200; /* leaves 1500 + 1200 for prompt (about 1000) and reply */
	run_scenario(&r, "openai_ok", "openai", &req, &b, "KOPT_TEST_KEY");
	q = json_array_get(r.requests, 0);
	json_t *body = json_loads(json_string_value(json_object_get(q, "body")), 0, NULL);
	json_int_t mt = json_integer_value(json_object_get(body, "max_tokens"));
	TAP_OK(r.rc == 0 && mt > 1024 && mt < 4096, "budget by tokens: max_tokens clamped to %lld",
	       (long long)mt);
	json_decref(body);
	run_release(&r);

	/* wall time */
	a.wall_s = 0;
	llm_budget_init(&b, &a);
	strbuf_init(&err);
	int rcw = llm_complete(&cfg, &req, &b, &rep, &err);
	TAP_OK(rcw == -1 && has(err.buf, "llm budget: ") && has(err.buf, "s of wall time used of 0.0 s"),
	       "budget by wall time: refused (%s)", err.buf);
	strbuf_release(&err);
	llm_reply_release(&rep);
}

static void t_replies(void)
{
	struct run r;
	struct llm_request req = req_fast();
	struct strbuf k = STRBUF_INIT, e = STRBUF_INIT;

	run_scenario(&r, "openai_two_blocks", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && llm_extract_kernel(r.reply.text.buf, KERNEL, &k, &e) == 0 &&
	       has(k.buf, "1.0 / tmp12") && !has(k.buf, "tmp14 = libdevice.exp(tmp13)"),
	       "two blocks define the kernel: the last is taken");
	run_release(&r);

	strbuf_reset(&k);
	run_scenario(&r, "vllm_no_usage", "openai", &req, NULL, NULL);
	TAP_OK(r.rc == 0 && r.reply.usage_estimated && r.reply.input_tokens > 100 && r.reply.output_tokens > 100,
	       "no usage in the reply (vLLM): tokens estimated");
	TAP_OK(req_header(json_array_get(r.requests, 0), "Authorization") == NULL,
	       "key_env NULL: no Authorization header (a local server)");
	run_release(&r);

	run_scenario(&r, "openai_no_fence", "openai", &req, NULL, "KOPT_TEST_KEY");
	strbuf_reset(&e);
	TAP_OK(r.rc == 0 && llm_extract_kernel(r.reply.text.buf, KERNEL, &k, &e) == -1 &&
	       strcmp(e.buf, "llm: the reply has no fenced code block") == 0, "a reply with no fenced block is rejected");
	run_release(&r);

	run_scenario(&r, "openai_wrong_kernel", "openai", &req, NULL, "KOPT_TEST_KEY");
	strbuf_reset(&e);
	int rcx = llm_extract_kernel(r.reply.text.buf, KERNEL, &k, &e);
	TAP_OK(r.rc == 0 && rcx == -1 && has(e.buf, "defines `def " KERNEL "(`") &&
	       has(e.buf, "found `def softmax_kernel(`"), "a block that does not define the kernel is rejected (%s)", e.buf);
	run_release(&r);

	run_scenario(&r, "openai_length", "openai", &req, NULL, "KOPT_TEST_KEY");
	strbuf_reset(&e);
	TAP_OK(r.rc == 0 && r.reply.truncated && llm_extract_kernel(r.reply.text.buf, KERNEL, &k, &e) == -1 &&
	       has(e.buf, "not closed"), "a reply cut at max_tokens: truncated, the open block is rejected");
	run_release(&r);
	strbuf_release(&k);
	strbuf_release(&e);
}

/* ---- secrets ---- */

static int secret_free(const struct run *r)
{
	return !has(r->err.buf, SECRET) && !has(r->reply.text.buf, SECRET) && !has(r->reply.stop_reason, SECRET);
}

static int key_only_in_headers(const struct run *r)
{
	size_t i;
	json_t *q;
	int n = 0;
	json_array_foreach(r->requests, i, q) {
		if (has(json_string_value(json_object_get(q, "body")), SECRET) || has(json_string_value(json_object_get(q, "path")), SECRET))
			return 0;
		n++;
	}
	return n > 0;
}

/* base64 for the test, written apart from llm.c's */
static void b64(const char *in, size_t n, const char *alphabet, struct strbuf *out)
{
	const unsigned char *p = (const unsigned char *)in;
	for (size_t i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		for (int j = 18; j >= 0; j -= 6)
			strbuf_addch(out, alphabet[(v >> j) & 63]);
	}
}

/* how many forms of the key text holds: its bytes, its halves, and the
 * whole 3-byte groups of its base64 at each of the three alignments, in
 * either alphabet (what any encoding of it shows whatever surrounds it) */
static int secret_forms_in(const char *text)
{
	static const char *const abc[] = { "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
					   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" };
	const char *k = SECRET;
	size_t n = strlen(k);
	int found = has(text, k);
	char *h1 = xstrndup(k, n / 2);
	found += has(text, h1) + has(text, k + n / 2);
	free(h1);
	for (int a = 0; a < 2; a++)
		for (size_t skip = 0; skip < 3; skip++) {
			struct strbuf sb = STRBUF_INIT;
			b64(k + skip, (n - skip) / 3 * 3, abc[a], &sb);
			if (has(text, sb.buf)) {
				tap_diag("left: %s", sb.buf);
				found++;
			}
			strbuf_release(&sb);
		}
	return found;
}

static void t_secrets(void)
{
	struct run r;
	struct llm_request req = req_fast();

	run_scenario(&r, "secret_openai_401", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.attempts == 1 && has(r.err.buf, "http 401") &&
	       has(r.err.buf, "Bearer [redacted]") && secret_free(&r) && key_only_in_headers(&r),
	       "secret: 401 echoing the Authorization header is scrubbed");
	run_release(&r);

	run_scenario(&r, "secret_anthropic_401", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "invalid x-api-key: [redacted]") && secret_free(&r) &&
	       key_only_in_headers(&r), "secret: anthropic 401 echoing x-api-key is scrubbed");
	run_release(&r);

	req.max_attempts = 3;
	run_scenario(&r, "secret_500_forever", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.attempts == 3 && has(r.err.buf, "[redacted]") && secret_free(&r) &&
	       key_only_in_headers(&r), "secret: 500s echoing the key until the retries run out");
	run_release(&r);

	run_scenario(&r, "secret_malformed", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "not JSON") && has(r.err.buf, "[redacted]") && secret_free(&r),
	       "secret: a malformed body echoing the key");
	run_release(&r);

	run_scenario(&r, "secret_cut", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "not JSON") && !has(r.err.buf, "sk-t") && secret_free(&r),
	       "secret: an excerpt cut inside the echoed key shows no part of it");
	run_release(&r);

	run_scenario(&r, "secret_in_text", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && has(r.reply.text.buf, "Bearer [redacted]") && r.reply.stop_reason &&
	       secret_free(&r), "secret: reply text and stop reason echoing the key are scrubbed");
	run_release(&r);

	/* a missing variable is named, its would-be value never appears */
	struct kopt_llm cfg = cfg_for("openai", (char *)"http://127.0.0.1:9/v1", "KOPT_TEST_NO_SUCH_KEY");
	struct llm_reply rep;
	struct strbuf err = STRBUF_INIT;
	llm_reply_init(&rep);
	TAP_OK(llm_complete(&cfg, &req, NULL, &rep, &err) == -1 && rep.attempts == 0 &&
	       strcmp(err.buf, "llm: environment variable KOPT_TEST_NO_SUCH_KEY is not set "
			       "(it should hold the openai API key)") == 0,
	       "missing key: the error names the variable");
	strbuf_reset(&err);
	cfg.key_env = (char *)SECRET; /* a user pasted the key where its variable's name goes */
	TAP_OK(llm_complete(&cfg, &req, NULL, &rep, &err) == -1 && !has(err.buf, SECRET) &&
	       has(err.buf, "key_env must name an environment variable"),
	       "a key pasted into key_env is not echoed");
	/* key_env's name: a letter or an underscore first, then letters,
	 * digits and underscores; what is refused before any network */
	static const struct { const char *name; bool ok; } names[] = {
		{ "_KOPT_NO_SUCH_1", true }, { "k9", true }, { "1KEY", false }, { "A-B", false }, { "A B", false }, { "-", false },
	};
	int named = 0;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		strbuf_reset(&err);
		cfg.key_env = (char *)names[i].name;
		int rc = llm_complete(&cfg, &req, NULL, &rep, &err);
		named += rc == -1 && rep.attempts == 0 &&
			 (names[i].ok ? has(err.buf, "is not set (it should hold the openai API key)")
				      : has(err.buf, "key_env must name an environment variable"));
	}
	TAP_OK(named == 6, "key_env: a letter or an underscore first, then letters, digits, underscores (%d of 6)", named);
	strbuf_reset(&err);
	cfg.key_env = NULL;
	struct kopt_llm bad = cfg;
	bad.provider = (char *)"mistral";
	int r1 = llm_complete(&bad, &req, NULL, &rep, &err);
	TAP_OK(r1 == -1 && !strcmp(err.buf, "llm: unknown provider 'mistral' (expected openai or anthropic)"),
	       "an unknown provider is refused, named (%s)", err.buf);
	strbuf_reset(&err);
	bad = cfg;
	bad.model = (char *)"";
	r1 = llm_complete(&bad, &req, NULL, &rep, &err);
	TAP_OK(r1 == -1 && !strcmp(err.buf, "llm: openai: no model given") && rep.attempts == 0, "no model: refused");
	strbuf_reset(&err);
	struct llm_request empty = req;
	empty.user = NULL;
	r1 = llm_complete(&cfg, &empty, NULL, &rep, &err);
	TAP_OK(r1 == -1 && !strcmp(err.buf, "llm: openai: empty request"), "no request text: refused");
	strbuf_release(&err);
	llm_reply_release(&rep);

	/* the key echoed as base64 (each alignment, both alphabets, padded or
	 * not) and in halves, in a reply and in an error */
	run_scenario(&r, "secret_forms", "openai", &req, NULL, "KOPT_TEST_KEY");
	int leaks = secret_forms_in(r.reply.text.buf) + secret_forms_in(r.reply.stop_reason) + secret_forms_in(r.err.buf);
	TAP_OK(r.rc == 0 && leaks == 0 && tap_count(r.reply.text.buf, "[redacted]") >= 11 &&
	       has(r.reply.text.buf, "raw [redacted];") && has(r.reply.text.buf, "half1 [redacted];") &&
	       has(r.reply.text.buf, "half2 [redacted]."), "secret: base64 (3 alignments, 2 alphabets, "
	       "with and without padding) and halves of the key are scrubbed from a reply (%d forms left)", leaks);
	if (leaks)
		tap_diag("text: %s", r.reply.text.buf);
	run_release(&r);
	run_scenario(&r, "secret_forms_401", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "http 401") && secret_forms_in(r.err.buf) == 0 && has(r.err.buf, "half [redacted]"),
	       "secret: and from an error message");
	run_release(&r);

	/* plain http only to a loopback address, unless the spec allows it */
	static const struct { const char *url; bool clear; } urls[] = {
		{ "http://127.0.0.1:8000/v1", false }, { "http://localhost:11434/v1", false },
		{ "http://LOCALHOST/v1", false }, { "http://127.9.9.9/v1", false }, { "http://[::1]:8000/v1", false },
		{ "https://api.openai.com/v1", false }, { "https://10.0.0.7/v1", false },
		{ "http://example.com/v1", true }, { "http://10.0.0.7:8000/v1", true },
		{ "http://127.0.0.1.evil.example/v1", true }, { "http://localhost.evil.example/v1", true },
		{ "http://user:pw@10.0.0.7/v1", true }, { "http://[::ffff:10.0.0.7]/v1", true },
		{ "HTTP://example.com/v1", true }, { "not a url", true },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
		bool c = http_cleartext_remote(urls[i].url, NULL);
		right += c == urls[i].clear;
		if (c != urls[i].clear)
			tap_diag("%s: cleartext_remote says %d", urls[i].url, c);
	}
	TAP_IS_INT(right, (int)(sizeof urls / sizeof *urls), "http: which URLs carry a key in the clear over the network");
	struct kopt_llm hc = cfg_for("openai", (char *)"http://192.0.2.1:9/v1", "KOPT_TEST_KEY");
	struct llm_budget hb;
	struct kopt_agents ha = { .llm_calls = 4, .tokens = -1, .wall_s = -1 };
	struct llm_reply hr;
	struct strbuf he = STRBUF_INIT;
	llm_budget_init(&hb, &ha);
	llm_reply_init(&hr);
	TAP_OK(llm_complete(&hc, &req, &hb, &hr, &he) == -1 && hr.attempts == 0 && hb.calls == 0 &&
	       has(he.buf, "the key in KOPT_TEST_KEY would go to 192.0.2.1 in the clear") &&
	       has(he.buf, "insecure_http = true") && !has(he.buf, SECRET),
	       "http: a key is not sent over plain http to another host; nothing is charged");
	strbuf_reset(&he);
	hc.insecure_http = true;
	struct llm_request quick = req;
	quick.connect_timeout_s = 0.2;
	quick.timeout_s = 0.3;
	quick.max_attempts = 1;
	TAP_OK(llm_complete(&hc, &quick, &hb, &hr, &he) == -1 && hr.attempts == 1 && !has(he.buf, "in the clear"),
	       "http: insecure_http = true sends it (here to an address that does not answer)");
	strbuf_release(&he);
	llm_reply_release(&hr);

	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, SECRET " at start, middle " SECRET SECRET ", end " SECRET);
	llm_scrub(&sb, SECRET);
	TAP_IS_STR(sb.buf, "[redacted] at start, middle [redacted][redacted], end [redacted]",
		   "llm_scrub replaces every occurrence");
	llm_scrub(&sb, "");
	llm_scrub(&sb, NULL);
	TAP_OK(has(sb.buf, "[redacted] at start"), "llm_scrub with no secret leaves the text");
	strbuf_release(&sb);
}

/* a key's halves are forms of it from 16 bytes on (halves of 8 bytes, the
 * shortest form kept); a key of 15 bytes has none */
static void t_scrub_halves(void)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "a 01234567 b 89abcdef c");
	llm_scrub(&sb, "0123456789abcdef");
	TAP_IS_STR(sb.buf, "a [redacted] b [redacted] c", "secret: a 16-byte key's halves, 8 bytes each, are scrubbed");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "a 01234567 b 89abcdefg c");
	llm_scrub(&sb, "0123456789abcdefg");
	TAP_IS_STR(sb.buf, "a [redacted] b [redacted] c", "secret: a 17-byte key's halves, 8 and 9 bytes, are scrubbed");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "a 0123456 b 789abcde c");
	llm_scrub(&sb, "0123456789abcde");
	TAP_IS_STR(sb.buf, "a 0123456 b 789abcde c", "secret: a 15-byte key's halves are no forms of it: the text stays");
	/* the longest forms go first: a whole key is one mask, not its two
	 * halves' masks, and its base64 is not cut up by a half's mask */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "a 0123456789abcdef0123456789abcdef b MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY= c");
	llm_scrub(&sb, "0123456789abcdef0123456789abcdef");
	TAP_IS_STR(sb.buf, "a [redacted] b [redacted] c",
		   "secret: a whole key, and its base64, each one mask (the longest forms first)");
	strbuf_release(&sb);
}

/* base64 of all n bytes, padded or not, for the test */
static void b64_all(const unsigned char *p, size_t n, const char *alphabet, bool pad, struct strbuf *out)
{
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		size_t chars = n - i >= 3 ? 4 : n - i + 1;
		for (size_t j = 0; j < 4; j++) {
			if (j < chars)
				strbuf_addch(out, alphabet[(v >> (18 - 6 * j)) & 63]);
			else if (pad)
				strbuf_addch(out, '=');
		}
	}
}

/* the endpoint a config posts to: the base without its trailing slashes,
 * the provider's own where none or an empty one is given */
static void t_endpoint(void)
{
	static const struct {
		const char *provider, *url, *want;
	} cases[] = {
		{ "openai", NULL, "https://api.openai.com/v1/chat/completions" },
		{ "openai", "", "https://api.openai.com/v1/chat/completions" },
		{ "anthropic", NULL, "https://api.anthropic.com/v1/messages" },
		{ "anthropic", "", "https://api.anthropic.com/v1/messages" },
		{ "openai", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/chat/completions" },
		{ "openai", "http://127.0.0.1:8000/v1///", "http://127.0.0.1:8000/v1/chat/completions" },
		{ "anthropic", "https://proxy.example/", "https://proxy.example/v1/messages" },
		{ "openai", "/", "/chat/completions" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct kopt_llm c = { .provider = (char *)cases[i].provider, .url = (char *)cases[i].url };
		struct strbuf u = STRBUF_INIT;
		int ok = llm_endpoint(&c, &u) == 0 && !strcmp(u.buf, cases[i].want);
		if (!ok)
			tap_diag("%s, url %s: '%s'", cases[i].provider, cases[i].url ? cases[i].url : "none", u.buf);
		right += ok;
		strbuf_release(&u);
	}
	struct kopt_llm bad = { .provider = (char *)"mistral" };
	struct strbuf u = STRBUF_INIT;
	TAP_OK(right == (int)(sizeof cases / sizeof *cases) && llm_endpoint(&bad, &u) == -1 && u.len == 0,
	       "endpoint: the base without trailing slashes, the provider's own for none or \"\", then its path; "
	       "an unknown provider none");
	strbuf_release(&u);
}

/* forms of fewer than 8 bytes are too short to search for (they would
 * take out words of the reply), but the key itself is searched however
 * short: a key of 5 bytes, whose base64 is 7 characters (8 padded) */
static void t_scrub_short(void)
{
	static const char key[] = "k3y!x";
	struct strbuf enc = STRBUF_INIT, pad = STRBUF_INIT, sb = STRBUF_INIT;
	b64_all((const unsigned char *)key, 5, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", false, &enc);
	b64_all((const unsigned char *)key, 5, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", true, &pad);
	strbuf_addf(&sb, "a %s b %s c %s d", key, enc.buf, pad.buf);
	llm_scrub(&sb, key);
	struct strbuf want = STRBUF_INIT;
	strbuf_addf(&want, "a [redacted] b %s c [redacted] d", enc.buf);
	TAP_OK(enc.len == 7 && pad.len == 8 && !strcmp(sb.buf, want.buf),
	       "secret: a 5-byte key is scrubbed, its 8-character padded base64 too, its 7-character one is too short a form ('%s')",
	       sb.buf);
	strbuf_release(&want);
	strbuf_release(&sb);
	strbuf_release(&pad);
	strbuf_release(&enc);
}

/* whether text is "<" enc[0:x] "[redacted]" enc[y:] ">" for an x in
 * [x0, x1] and a y in [y0, y1] */
static bool scrubbed_within(const char *text, const char *enc, size_t x0, size_t x1, size_t y0, size_t y1)
{
	size_t len = strlen(enc);
	for (size_t x = x0; x <= x1; x++)
		for (size_t y = y0; y <= y1 && y <= len; y++) {
			struct strbuf want = STRBUF_INIT;
			strbuf_addf(&want, "<%.*s[redacted]%s>", (int)x, enc, enc + y);
			bool same = strcmp(text, want.buf) == 0;
			strbuf_release(&want);
			if (same)
				return true;
		}
	return false;
}

/*
 * The scrubber's idea of an encoded key: in a base64 text of a key and
 * other bytes (before it at each alignment, after it, in either alphabet,
 * padded or not), every character that holds a bit of the key goes,
 * whatever characters of the alphabet the other bytes make beside it; the
 * redaction stays within the groups of four characters that hold key
 * bytes (and their padding), and the characters around the text (none of
 * them base64's: `=` is padding only at the end) stay, also where the text
 * is cut at the key's first character. The keys' first and last bytes put
 * each of + / - _ among the characters that hold key bits, and the last
 * key's middle ("~~~", "???") puts them inside its whole groups, where
 * only the form in that alphabet matches.
 */
static void t_scrub_encoded(void)
{
	static const char *const abc[] = { "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
					   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" };
	static const char *const keys[] = { SECRET, "~sk-test-key-0007", "?sk-test-key-0w", "sk-test-key-1234567",
					    "sk-~~~~~~~~~-key-\x3f\x3f\x3f\x3f\x3f\x3f-42" };
	int cases = 0, right = 0;
	for (size_t kk = 0; kk < sizeof keys / sizeof *keys; kk++)
		for (int a = 0; a < 2; a++)
			for (int pad = 0; pad < 2; pad++)
				for (size_t before = 0; before < 3; before++)
					for (size_t after = 0; after < 5; after++)
						for (unsigned v = 0; v < 256; v++) {
							const char *k = keys[kk];
							size_t n = strlen(k);
							unsigned char buf[64];
							for (size_t i = 0; i < before; i++)
								buf[i] = (unsigned char)(v + 37 * i);
							memcpy(buf + before, k, n);
							for (size_t i = 0; i < after; i++)
								buf[before + n + i] = (unsigned char)(255 - v + 11 * i);
							struct strbuf enc = STRBUF_INIT, text = STRBUF_INIT;
							b64_all(buf, before + n + after, abc[a], pad, &enc);
							/* characters holding key bits, and the groups holding key bytes */
							size_t first_c = 8 * before / 6, last_c = (8 * (before + n) - 1) / 6;
							size_t first_g = before / 3, end_g = 4 * ((before + n - 1) / 3 + 1);
							if (end_g >= enc.len)
								end_g = enc.len;
							strbuf_addf(&text, "<%s>", enc.buf);
							llm_scrub(&text, k);
							bool good = scrubbed_within(text.buf, enc.buf, 4 * first_g, 4 * first_g, last_c + 1, end_g);
							/* the text cut at the key's first character, after "==" */
							strbuf_reset(&text);
							strbuf_addf(&text, "<==%s>", enc.buf + first_c);
							llm_scrub(&text, k);
							good = good && !strncmp(text.buf, "<==[redacted]", 13) &&
							       strlen(text.buf) <= 14 + enc.len - last_c;
							cases++;
							if (good)
								right++;
							else if (cases - right <= 3)
								tap_diag("<%s>, key %s: scrubbed to %s", enc.buf, k, text.buf);
							strbuf_release(&enc);
							strbuf_release(&text);
						}
	/* the key's own encoding, whole and unpadded, followed by other text
	 * of the alphabet: that text stays */
	int after_ok = 0;
	for (size_t kk = 0; kk < sizeof keys / sizeof *keys; kk++)
		for (int a = 0; a < 2; a++) {
			struct strbuf enc = STRBUF_INIT, text = STRBUF_INIT, want = STRBUF_INIT;
			b64_all((const unsigned char *)keys[kk], strlen(keys[kk]), abc[a], false, &enc);
			strbuf_addf(&text, "<%s.QQQ>", enc.buf);
			llm_scrub(&text, keys[kk]);
			after_ok += !strcmp(text.buf, "<[redacted].QQQ>");
			strbuf_reset(&text);
			strbuf_addf(&text, "<%sQQQ>", enc.buf);
			llm_scrub(&text, keys[kk]);
			after_ok += !strcmp(text.buf, "<[redacted]QQQ>");
			strbuf_release(&enc);
			strbuf_release(&text);
			strbuf_release(&want);
		}
	TAP_IS_INT(after_ok, (int)(4 * sizeof keys / sizeof *keys), "secret: text after the key's whole encoding stays");
	TAP_IS_INT(right, cases, "secret: the scrubber takes every base64 character holding a bit of the key, whatever "
		   "characters of either alphabet the bytes around make beside it, and nothing outside its groups");
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "a=" SECRET "=b +" SECRET "/ -" SECRET "_");
	llm_scrub(&sb, SECRET);
	TAP_IS_STR(sb.buf, "a=[redacted]=b +[redacted]/ -[redacted]_",
		   "secret: the key itself goes alone: the characters beside it stay, base64's too");
	strbuf_reset(&sb);
	size_t half = strlen(SECRET) / 2;
	strbuf_addf(&sb, "Q%.*sQ x%sx", (int)half, SECRET, SECRET + half);
	llm_scrub(&sb, SECRET);
	TAP_IS_STR(sb.buf, "Q[redacted]Q x[redacted]x", "secret: so do its halves");
	strbuf_release(&sb);
}

/*
 * The base URL from the spec may end in slashes: the client drops them all
 * before it adds the API's path, for each provider; a URL of slashes alone
 * is refused before any request, as one with no host.
 */
static void t_url_slashes(void)
{
	struct llm_request req = req_fast();
	struct server s;
	if (server_start(&s, "openai_ok_x3") != 0) {
		TAP_OK(0, "url: the replay server starts");
		return;
	}
	static const char *const tails[] = { "/v1", "/v1/", "/v1///" };
	int ok = 0;
	for (size_t i = 0; i < 3; i++) {
		char *url = xasprintf("%s%s", s.url, tails[i]);
		struct kopt_llm cfg = cfg_for("openai", url, "KOPT_TEST_KEY");
		struct llm_reply rep;
		struct strbuf err = STRBUF_INIT;
		llm_reply_init(&rep);
		if (llm_complete(&cfg, &req, NULL, &rep, &err) == 0)
			ok++;
		else
			tap_diag("%s: %s", url, err.buf);
		llm_reply_release(&rep);
		strbuf_release(&err);
		free(url);
	}
	server_stop(&s);
	json_t *q = server_requests(&s);
	int paths = 0;
	for (size_t i = 0; i < json_array_size(q); i++)
		paths += strcmp(json_string_value(json_object_get(json_array_get(q, i), "path")), "/v1/chat/completions") == 0;
	TAP_OK(ok == 3 && paths == 3 && json_array_size(q) == 3,
	       "url: a base URL ending in /v1, /v1/ or /v1/// posts to /v1/chat/completions (%d answered, %d such paths)",
	       ok, paths);
	json_decref(q);

	if (server_start(&s, "anthropic_ok") != 0)
		return;
	char *url = xasprintf("%s//", s.url);
	struct kopt_llm cfg = cfg_for("anthropic", url, "KOPT_TEST_KEY");
	struct llm_reply rep;
	struct strbuf err = STRBUF_INIT;
	llm_reply_init(&rep);
	int rc = llm_complete(&cfg, &req, NULL, &rep, &err);
	server_stop(&s);
	q = server_requests(&s);
	TAP_OK(rc == 0 && json_array_size(q) == 1 &&
	       strcmp(json_string_value(json_object_get(json_array_get(q, 0), "path")), "/v1/messages") == 0,
	       "url: anthropic's base URL with two trailing slashes posts to /v1/messages");
	json_decref(q);
	free(url);
	strbuf_reset(&err);
	cfg.url = (char *)"///";
	rc = llm_complete(&cfg, &req, NULL, &rep, &err);
	TAP_OK(rc == -1 && rep.attempts == 0 && has(err.buf, "a URL that does not parse"),
	       "url: a base URL of slashes alone is refused before any request");
	llm_reply_release(&rep);
	strbuf_release(&err);
}

/*
 * How much of an error body an error quotes: the server's own message up
 * to 300 bytes, in each of the shapes the APIs use; a body with none (not
 * JSON, or JSON without a message) up to 200; "..." where cut, nothing
 * added at the limit itself; the count returned is the bytes added.
 */
static void t_error_lengths(void)
{
	static const struct { const char *pre, *post; size_t limit; } shapes[] = {
		{ "", "", 200 }, /* not JSON */
		{ "{\"error\":{\"message\":\"", "\"}}", 300 }, { "{\"error\":\"", "\"}", 300 },
		{ "{\"detail\":\"", "\"}", 300 }, { "{\"message\":\"", "\"}", 300 },
		{ "{\"status\":\"", "\"}", 200 }, /* JSON without a message: the body */
	};
	int cases = 0, right = 0;
	for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
		for (size_t len = 190; len <= 310; len += 10) {
			struct strbuf body = STRBUF_INIT, msg = STRBUF_INIT, want = STRBUF_INIT;
			strbuf_addstr(&body, shapes[sh].pre);
			for (size_t i = 0; i < len; i++)
				strbuf_addch(&body, (char)('a' + i % 26));
			strbuf_addstr(&body, shapes[sh].post);
			bool whole_body = shapes[sh].limit == 200;
			const char *quoted = whole_body ? body.buf : body.buf + strlen(shapes[sh].pre);
			size_t qlen = whole_body ? body.len : len, limit = shapes[sh].limit;
			strbuf_addstr(&msg, "llm: ");
			strbuf_add(&want, quoted, qlen < limit ? qlen : limit);
			if (qlen > limit)
				strbuf_addstr(&want, "...");
			size_t added = llm_error_message(body.buf, body.len, &msg);
			cases++;
			if (!strcmp(msg.buf + 5, want.buf) && added == want.len)
				right++;
			else if (cases - right <= 3)
				tap_diag("%s...: quoted %zu bytes as '%.40s...', %zu added", shapes[sh].pre, msg.len - 5, msg.buf + 5,
					 added);
			strbuf_release(&body);
			strbuf_release(&msg);
			strbuf_release(&want);
		}
	TAP_IS_INT(right, cases, "error bodies: the server's message is quoted up to 300 bytes, a body without one up to "
		   "200, cut with \"...\"; the count is the bytes added");
}

static void t_http(void)
{
	time_t now = 1700000000;
	TAP_OK(http_parse_retry_after("120", now) == 120 && http_parse_retry_after(" 0 ", now) == 0 &&
	       http_parse_retry_after("1.5", now) == 1.5, "Retry-After in seconds");
	/* 1700000000 is Tue, 14 Nov 2023 22:13:20 GMT */
	TAP_OK(http_parse_retry_after("Tue, 14 Nov 2023 22:13:50 GMT", now) == 30 &&
	       http_parse_retry_after("Tue, 14 Nov 2023 22:00:00 GMT", now) == 0, "Retry-After as an HTTP date");
	TAP_OK(http_parse_retry_after("soon", now) < 0 && http_parse_retry_after("", now) < 0,
	       "unreadable Retry-After");
	struct http_response resp;
	http_response_init(&resp);
	strbuf_addstr(&resp.headers, "Content-Type: application/json\r\nretry-after:  7 \r\n");
	char *v = http_response_header(&resp, "Retry-After");
	TAP_IS_STR(v, "7", "response header looked up regardless of case");
	TAP_OK(http_response_header(&resp, "X-None") == NULL, "absent header is NULL");
	free(v);
	http_response_release(&resp);
}

/* prompt caching: Anthropic's cache_control on the stable prefix; cached tokens read */
static void t_cache(void)
{
	struct run r;
	struct llm_request req = req_fast();
	size_t n = strlen(prompt_user);
	req.user_stable = n / 2;
	run_scenario(&r, "anthropic_cached", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	json_t *body = json_loads(json_string_value(json_object_get(json_array_get(r.requests, 0), "body")), 0, NULL);
	json_t *content = json_object_get(json_array_get(json_object_get(body, "messages"), 0), "content");
	json_t *b0 = json_array_get(content, 0), *b1 = json_array_get(content, 1);
	const char *t0 = json_string_value(json_object_get(b0, "text")), *t1 = json_string_value(json_object_get(b1, "text"));
	TAP_OK(r.rc == 0 && json_array_size(content) == 2 && t0 && t1 && strlen(t0) == n / 2 &&
	       strncmp(t0, prompt_user, n / 2) == 0 && strcmp(t1, prompt_user + n / 2) == 0 &&
	       strcmp(json_string_value(json_object_get(json_object_get(b0, "cache_control"), "type")), "ephemeral") == 0 &&
	       !json_object_get(b1, "cache_control") && json_is_string(json_object_get(body, "system")),
	       "anthropic: the stable prefix is a block of its own with cache_control, the rest follows");
	TAP_OK(r.reply.input_tokens == 342 + 1200 && r.reply.cached_tokens == 1200 && r.reply.output_tokens == 687,
	       "anthropic: cache reads count as input tokens, and as cached ones");
	json_decref(body);
	run_release(&r);

	/* a later round: the earlier turns come first, in order, then the two blocks */
	struct llm_turn turns[] = {
		{ LLM_USER, "Speed up the kernel." },
		{ LLM_ASSISTANT, "```python\ndef f():\n    pass\n```" },
	};
	req.turns = turns;
	req.nturns = 2;
	run_scenario(&r, "anthropic_cached", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	body = json_loads(json_string_value(json_object_get(json_array_get(r.requests, 0), "body")), 0, NULL);
	json_t *ms = json_object_get(body, "messages");
	const char *r0 = json_string_value(json_object_get(json_array_get(ms, 0), "role"));
	const char *r1 = json_string_value(json_object_get(json_array_get(ms, 1), "role"));
	const char *c1 = json_string_value(json_object_get(json_array_get(ms, 1), "content"));
	content = json_object_get(json_array_get(ms, 2), "content");
	TAP_OK(r.rc == 0 && json_array_size(ms) == 3 && r0 && strcmp(r0, "user") == 0 && r1 &&
	       strcmp(r1, "assistant") == 0 && c1 && strcmp(c1, turns[1].text) == 0 && json_array_size(content) == 2 &&
	       json_object_get(json_array_get(content, 0), "cache_control"),
	       "anthropic, cached, with earlier turns: the turns, then the stable block and the rest");
	json_decref(body);
	run_release(&r);
	req.turns = NULL;
	req.nturns = 0;

	req.user_stable = n / 2;
	run_scenario(&r, "openai_cached", "openai", &req, NULL, "KOPT_TEST_KEY");
	body = json_loads(json_string_value(json_object_get(json_array_get(r.requests, 0), "body")), 0, NULL);
	json_t *msgs = json_object_get(body, "messages");
	TAP_OK(r.rc == 0 && json_is_string(json_object_get(json_array_get(msgs, json_array_size(msgs) - 1), "content")) &&
	       strcmp(json_string_value(json_object_get(json_array_get(msgs, json_array_size(msgs) - 1), "content")), prompt_user) == 0,
	       "openai: the prompt goes as one message, its stable part first (the server caches prefixes itself)");
	TAP_OK(r.reply.input_tokens == 1873 && r.reply.cached_tokens == 1024,
	       "openai: usage.prompt_tokens_details.cached_tokens read");
	json_decref(body);
	run_release(&r);
}

/* several samples of one request at once, within the budget */
static void t_many(void)
{
	struct server s;
	struct llm_request req = req_fast();
	struct llm_reply out[3];
	struct strbuf err[3];
	int rc[3];
	for (int i = 0; i < 3; i++) {
		llm_reply_init(&out[i]);
		strbuf_init(&err[i]);
	}
	if (server_start(&s, "openai_slow_x3") != 0) {
		TAP_OK(0, "many: the replay server starts");
		return;
	}
	char *url = url_of(&s, "openai");
	struct kopt_llm cfg = cfg_for("openai", url, "KOPT_TEST_KEY");
	struct llm_budget b;
	llm_budget_init(&b, NULL);
	b.max_calls = 10;
	b.max_tokens = 100000;
	double t0 = kopt_now();
	int k = llm_complete_many(&cfg, &req, 3, &b, out, err, rc);
	double took = kopt_now() - t0;
	server_stop(&s);
	json_t *q = server_requests(&s);
	TAP_OK(k == 3 && rc[0] == 0 && rc[1] == 0 && rc[2] == 0 && json_array_size(q) == 3 &&
	       has(out[2].text.buf, "def " KERNEL "("), "many: three samples, three requests, three replies");
	TAP_OK(took < 1.5, "many: the calls run at once (%.2f s for three replies of 0.6 s each)", took);
	TAP_OK(b.calls == 3 && b.tokens == 3 * (1873 + 912), "many: the budget is charged each call and its tokens");
	json_decref(q);
	for (int i = 0; i < 3; i++) {
		llm_reply_release(&out[i]);
		strbuf_reset(&err[i]);
	}

	/* a budget of 12000 tokens for three samples: each its third, so each
	 * request asks for fewer than the spec's 4096 output tokens */
	if (server_start(&s, "openai_slow_x3") == 0) {
		char *u = url_of(&s, "openai");
		struct kopt_llm c3 = cfg_for("openai", u, "KOPT_TEST_KEY");
		struct llm_budget b3;
		llm_budget_init(&b3, NULL);
		b3.max_calls = 10;
		b3.max_tokens = 12000;
		k = llm_complete_many(&c3, &req, 3, &b3, out, err, rc);
		server_stop(&s);
		q = server_requests(&s);
		int capped = 0;
		for (size_t i = 0; i < json_array_size(q); i++) {
			json_t *body = json_loads(json_string_value(json_object_get(json_array_get(q, i), "body")), 0, NULL);
			json_int_t mt = json_integer_value(json_object_get(body, "max_tokens"));
			capped += mt > 0 && mt < 4000;
			json_decref(body);
		}
		TAP_OK(k == 3 && json_array_size(q) == 3 && capped == 3,
		       "many: each of three samples asks for its third of a budget of 12000 tokens, less its prompt");
		json_decref(q);
		for (int i = 0; i < 3; i++) {
			llm_reply_release(&out[i]);
			strbuf_reset(&err[i]);
		}
		free(u);
	}

	/* no limit on tokens: each sample unlimited too */
	if (server_start(&s, "openai_slow_x3") != 0) {
		TAP_OK(0, "many: the replay server starts again");
		return;
	}
	free(url);
	url = url_of(&s, "openai");
	cfg = cfg_for("openai", url, "KOPT_TEST_KEY");
	struct llm_budget free_tokens;
	llm_budget_init(&free_tokens, NULL);
	free_tokens.max_calls = 3;
	free_tokens.max_tokens = -1;
	k = llm_complete_many(&cfg, &req, 3, &free_tokens, out, err, rc);
	server_stop(&s);
	TAP_OK(k == 3 && rc[0] == 0 && rc[1] == 0 && rc[2] == 0 && free_tokens.calls == 3 &&
	       free_tokens.tokens == 3 * (1873 + 912),
	       "many: no limit on tokens, three samples each without one (%d: %d %d %d, %s)", k, rc[0], rc[1], rc[2],
	       err[0].len ? err[0].buf : err[1].len ? err[1].buf : err[2].buf);
	for (int i = 0; i < 3; i++) {
		llm_reply_release(&out[i]);
		strbuf_reset(&err[i]);
	}

	/* the budget decides how many start */
	struct llm_budget two;
	llm_budget_init(&two, NULL);
	two.max_calls = 2;
	two.calls = 1;
	two.max_tokens = -1;
	cfg.url = (char *)"http://127.0.0.1:9/v1"; /* nothing listens: each call fails fast */
	req.max_attempts = 1;
	k = llm_complete_many(&cfg, &req, 3, &two, out, err, rc);
	TAP_OK(k == 1 && two.calls == 2 && rc[0] == -1 && has(err[0].buf, "cannot connect"),
	       "many: one call left of the budget, one call made");
	strbuf_reset(&err[0]);
	k = llm_complete_many(&cfg, &req, 3, &two, out, err, rc);
	TAP_OK(k == -1 && has(err[0].buf, "llm budget: 2 calls used of 2"), "many: none left, none made, the limit named");
	strbuf_reset(&err[0]);
	/* how many start: what the tokens left hold, a call's worth each */
	long one = (long)strlen(prompt_user) / 4 + 1500;
	struct llm_budget tok = tokens_left(one, 0);
	k = llm_complete_many(&cfg, &req, 3, &tok, out, err, rc);
	TAP_OK(k == 1, "many: tokens for one prompt and reply, one call made (%d)", k);
	for (int i = 0; i < 3; i++)
		strbuf_reset(&err[i]);
	tok = tokens_left(3 * one, 2 * one);
	k = llm_complete_many(&cfg, &req, 3, &tok, out, err, rc);
	TAP_OK(k == 1, "many: tokens for three calls of which two are used: one call made (%d)", k);
	for (int i = 0; i < 3; i++)
		strbuf_reset(&err[i]);
	/* at the edge: exactly two calls' worth (max_tokens 600 under 1024:
	 * each needs its prompt's estimate and 600) starts two */
	struct kopt_llm c600 = cfg;
	c600.max_tokens = 600;
	long est = prompt_estimate(&req);
	tok = tokens_left(2 * (est + 600), 0);
	int k2 = llm_complete_many(&c600, &req, 3, &tok, out, err, rc);
	for (int i = 0; i < 3; i++) {
		llm_reply_release(&out[i]);
		strbuf_reset(&err[i]);
	}
	tok = tokens_left(2 * (est + 600) - 1, 0);
	k = llm_complete_many(&c600, &req, 3, &tok, out, err, rc);
	TAP_OK(k2 == 2 && k == 1, "many: tokens for exactly two calls start two, one token fewer one (%d, %d)", k2, k);
	for (int i = 0; i < 3; i++) {
		llm_reply_release(&out[i]);
		strbuf_release(&err[i]);
	}
	free(url);
}

/* ---- edges: what a user reads at the limits of the excerpts, the status classes, keys and budgets ---- */

static int ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void t_edges(void)
{
	struct run r;
	struct llm_request req = req_fast();

	/* an API error's message is quoted up to 300 characters, whole at exactly 300 */
	run_scenario(&r, "openai_400_long", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.status == 400 && has(r.err.buf, "request id req_8f2c1e9a7b3d4f60") &&
	       ends_with(r.err.buf, "d4f5a6b7c88f2c1e9a7b3d) (invalid_request_error)"),
	       "an error message of 300 characters is quoted whole, then its type");
	run_release(&r);

	/* a reply that is not JSON is quoted up to 120 bytes: whole at exactly 120 */
	run_scenario(&r, "openai_not_json_120", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "openai reply is not JSON") &&
	       ends_with(r.err.buf, "far too early</p></body></html> "), "a 120-byte page that is not JSON is quoted whole");
	run_release(&r);
	run_scenario(&r, "anthropic_not_json_120", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "llm: anthropic reply is not JSON (") &&
	       ends_with(r.err.buf, "far too early</p></body></html> "), "... and so is one from anthropic's endpoint");
	run_release(&r);

	/* a refusal is quoted up to 200 characters: whole at exactly 200 */
	run_scenario(&r, "openai_refusal_200", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "openai reply is a refusal: I can't help with this rewrite") &&
	       ends_with(r.err.buf, "2c1e9a7b3d4f60a1c2e3d4f5a6b7c)"), "a refusal of 200 characters is quoted whole");
	run_release(&r);

	/* one byte past each cap: cut there, and "..." says so */
	run_scenario(&r, "openai_not_json_121", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && ends_with(r.err.buf, "far too early</p></body></html>!..."),
	       "a 121-byte page that is not JSON is cut at 120 bytes, with '...'");
	run_release(&r);
	run_scenario(&r, "anthropic_not_json_121", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && ends_with(r.err.buf, "far too early</p></body></html>!..."),
	       "... and so is one from anthropic's endpoint");
	run_release(&r);
	run_scenario(&r, "openai_400_long_301", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && ends_with(r.err.buf, "c1e9a7b3d7... (invalid_request_error)"),
	       "an error message of 301 characters is cut at 300, with '...', then its type");
	run_release(&r);
	run_scenario(&r, "openai_refusal_201", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && ends_with(r.err.buf, "a1c2e3d4f5a6b7c8..."), "a refusal of 201 characters is cut at 200, with '...'");
	run_release(&r);

	/* an answer of nothing but white space is no answer, from either API */
	run_scenario(&r, "openai_blank", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "llm: openai reply has an empty answer (stopped: stop)"),
	       "openai: an answer of spaces, tabs and newlines is an empty answer, with the stop reason");
	run_release(&r);
	run_scenario(&r, "anthropic_blank", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "llm: anthropic reply has an empty answer (stopped: end_turn)"),
	       "anthropic: an answer of newlines and spaces is an empty answer, with the stop reason");
	run_release(&r);

	/* content parts of which none is text: no text at all */
	run_scenario(&r, "openai_parts_no_text", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && has(r.err.buf, "choices[0].message.content is not text"),
	       "content parts without any text part: clean error");
	run_release(&r);

	/* any 2xx is a success */
	run_scenario(&r, "openai_299", "openai", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.status == 299 && r.reply.attempts == 1 && has(r.reply.text.buf, "def " KERNEL "("),
	       "status 299 is a success");
	run_release(&r);

	/* '~' is a printable key character; DEL is a control character */
	setenv("KOPT_TEST_TILDE_KEY", "sk-proj~Tilde~1234", 1);
	run_scenario(&r, "openai_ok", "openai", &req, NULL, "KOPT_TEST_TILDE_KEY");
	const char *auth = req_header(json_array_get(r.requests, 0), "Authorization");
	TAP_OK(r.rc == 0 && auth && strcmp(auth, "Bearer sk-proj~Tilde~1234") == 0, "a key holding '~' is sent as it is");
	run_release(&r);
	setenv("KOPT_TEST_TILDE_KEY", "sk-proj\x7f" "1234", 1);
	struct kopt_llm dc = cfg_for("openai", (char *)"http://127.0.0.1:9/v1", "KOPT_TEST_TILDE_KEY");
	struct llm_reply dr;
	struct strbuf de = STRBUF_INIT;
	llm_reply_init(&dr);
	TAP_OK(llm_complete(&dc, &req, NULL, &dr, &de) == -1 && dr.attempts == 0 &&
	       has(de.buf, "KOPT_TEST_TILDE_KEY contains a control character"), "a key holding DEL is refused");
	llm_reply_release(&dr);
	strbuf_release(&de);
	unsetenv("KOPT_TEST_TILDE_KEY");

	/* without usage in the reply, the prompt's tokens are estimated: a quarter
	 * of its characters, plus 8 for the request around them */
	run_scenario(&r, "vllm_no_usage", "openai", &req, NULL, NULL);
	long chars = (long)(strlen(req.user) + strlen(req.system));
	TAP_OK(r.rc == 0 && r.reply.usage_estimated && r.reply.input_tokens == chars / 4 + 8,
	       "estimated input tokens: %ld characters, %ld tokens", chars, r.reply.input_tokens);
	run_release(&r);
	/* with earlier turns: their characters too, and 4 for each turn's frame */
	struct llm_turn turns[2] = { { LLM_USER, "an earlier question of forty characters." },
				     { LLM_ASSISTANT, "and its answer, of thirty characters" } };
	struct llm_request treq = req;
	treq.turns = turns;
	treq.nturns = 2;
	run_scenario(&r, "vllm_no_usage", "openai", &treq, NULL, NULL);
	long tchars = chars + (long)(strlen(turns[0].text) + strlen(turns[1].text));
	TAP_OK(r.rc == 0 && r.reply.usage_estimated && r.reply.input_tokens == tchars / 4 + 8 + 2 * 4,
	       "estimated input tokens with two earlier turns: %ld characters, %ld tokens", tchars, r.reply.input_tokens);
	run_release(&r);

	/* the reply's max_tokens is what the budget has left: 100 tokens more
	 * used, 100 fewer asked for */
	struct kopt_agents a = { .llm_calls = -1, .tokens = 6000, .wall_s = -1 };
	struct llm_budget b;
	json_int_t mt[2];
	for (int i = 0; i < 2; i++) {
		llm_budget_init(&b, &a);
		b.tokens = 3000 + 100 * i;
		run_scenario(&r, "openai_ok", "openai", &req, &b, "KOPT_TEST_KEY");
		json_t *body = json_loads(json_string_value(json_object_get(json_array_get(r.requests, 0), "body")), 0, NULL);
		mt[i] = r.rc == 0 ? json_integer_value(json_object_get(body, "max_tokens")) : -1;
		json_decref(body);
		run_release(&r);
	}
	TAP_OK(mt[0] > 0 && mt[0] < 4096 && mt[0] - mt[1] == 100,
	       "budget by tokens: max_tokens %lld with 3000 used, %lld with 3100", (long long)mt[0], (long long)mt[1]);

	/* retries back off 1 s, then 2 s: with 1.8 s of wall time, the second
	 * wait does not fit and the call gives up after two attempts */
	struct llm_request slow = req_fast();
	slow.backoff_ms = 1000;
	slow.backoff_max_ms = 60000;
	slow.max_attempts = 5;
	struct kopt_agents w = { .llm_calls = -1, .tokens = -1, .wall_s = 1.8 };
	llm_budget_init(&b, &w);
	run_scenario(&r, "openai_500_forever", "openai", &slow, &b, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.attempts == 2 && json_array_size(r.requests) == 2 &&
	       has(r.err.buf, "too little left to retry after 2 attempts") && r.elapsed >= 0.95,
	       "back-off of 1 s then 2 s: two attempts in 1.8 s of wall time (%.2f s)", r.elapsed);
	const char *used = strstr(r.err.buf, "llm budget: ");
	double secs = -1, of = -1;
	int got = used ? sscanf(used, "llm budget: %lf s of wall time used of %lf s", &secs, &of) : 0;
	TAP_OK(got == 2 && secs >= 0.9 && secs <= r.elapsed + 0.05 && fabs(of - 1.8) < 1e-9,
	       "... and says the seconds used of the 1.8 (%.1f of %.1f)", secs, of);
	run_release(&r);
	/* with 0.8 s, the first wait (1 s) does not fit either: one attempt,
	 * said in the singular */
	w.wall_s = 0.8;
	llm_budget_init(&b, &w);
	run_scenario(&r, "openai_500_forever", "openai", &slow, &b, "KOPT_TEST_KEY");
	const char *once = strstr(r.err.buf, "too little left to retry after ");
	TAP_OK(r.rc == -1 && r.reply.attempts == 1 && once && !strcmp(once, "too little left to retry after 1 attempt"),
	       "a first wait that does not fit: one attempt, in the singular (%s)", once ? once : r.err.buf);
	run_release(&r);
	/* the back-off doubles at every attempt, the eleventh's included:
	 * 1 ms doubled ten times is 1.024 s, and the eleven waits 2.047 s
	 * together fit 30 s of wall time and a cap of three hours */
	struct llm_request many = req_fast();
	many.backoff_ms = 1;
	many.backoff_max_ms = 3L * 3600 * 1000;
	many.max_attempts = 12;
	w.wall_s = 30;
	llm_budget_init(&b, &w);
	run_scenario(&r, "openai_500_x12", "openai", &many, &b, "KOPT_TEST_KEY");
	TAP_OK(r.rc == -1 && r.reply.attempts == 12 && has(r.err.buf, "(after 12 attempts)") &&
	       r.elapsed >= 2.0 && r.elapsed < 20,
	       "twelve attempts 1 ms to 1.024 s apart: all twelve, in %.2f s (%s)", r.elapsed, r.err.buf);
	run_release(&r);
}

static volatile sig_atomic_t ticks;
static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

/* a call to a port where nothing listens (127.0.0.1:9): attempts made
 * only when the budget lets it start */
static int call_dead(struct kopt_llm *cfg, const struct llm_request *req, struct llm_budget *b,
		     struct llm_reply *out, struct strbuf *err, double *took)
{
	llm_reply_init(out);
	strbuf_reset(err);
	double t0 = kopt_now();
	int rc = llm_complete(cfg, req, b, out, err);
	*took = kopt_now() - t0;
	return rc;
}

/* the limits of the checks before and between attempts, to the token and
 * the millisecond, and what a reply's odd bytes and counts become */
static void t_limits(void)
{
	struct llm_request req = req_fast();
	req.max_attempts = 1;
	struct kopt_llm cfg = cfg_for("openai", (char *)"http://127.0.0.1:9/v1", "KOPT_TEST_KEY");
	struct llm_reply out;
	struct strbuf err = STRBUF_INIT;
	double took;
	/* with max_tokens under 1024 a call needs its prompt and max_tokens
	 * left: 600 tokens of reply, not 1024 */
	cfg.max_tokens = 600;
	long est = prompt_estimate(&req);
	struct llm_budget b;
	llm_budget_init(&b, NULL);
	b.max_tokens = est + 600;
	int rc = call_dead(&cfg, &req, &b, &out, &err, &took);
	TAP_OK(rc == -1 && out.attempts == 1 && has(err.buf, "cannot connect") && !has(err.buf, "llm budget"),
	       "budget: max_tokens 600, the prompt's %ld tokens and 600 left: the call is made", est);
	if (out.attempts != 1)
		tap_diag("%s", err.buf);
	llm_reply_release(&out);
	llm_budget_init(&b, NULL);
	b.max_tokens = est + 599;
	char want[128];
	snprintf(want, sizeof want, "llm budget: 0 tokens used of %ld, this call needs about %ld", est + 599, est + 600);
	rc = call_dead(&cfg, &req, &b, &out, &err, &took);
	TAP_OK(rc == -1 && out.attempts == 0 && has(err.buf, want),
	       "budget: one token fewer: refused, the call needing the prompt's and 600 (%s)", err.buf);
	llm_reply_release(&out);
	cfg.max_tokens = 4096;

	/* a request without a back-off of its own waits KOPT_LLM_BACKOFF_MS */
	struct llm_request nb = req_fast();
	nb.max_attempts = 2;
	nb.backoff_ms = 0;
	nb.backoff_max_ms = 0;
	setenv("KOPT_LLM_BACKOFF_MS", "300", 1);
	rc = call_dead(&cfg, &nb, NULL, &out, &err, &took);
	unsetenv("KOPT_LLM_BACKOFF_MS");
	TAP_OK(rc == -1 && out.attempts == 2 && took >= 0.3 && took < 5,
	       "KOPT_LLM_BACKOFF_MS=300 and no back-off in the request: two attempts %.2f s apart", took);
	llm_reply_release(&out);
	/* a value that is not a count of milliseconds is the default, 1 s:
	 * with half a second of wall time left, no retry fits (where the
	 * value were taken, -5 or 30 ms would fit one) */
	static const char *const not_ms[] = { "-5", "30x", "x" };
	int defaulted = 0;
	for (size_t i = 0; i < sizeof not_ms / sizeof *not_ms; i++) {
		struct kopt_agents half = { .llm_calls = -1, .tokens = -1, .wall_s = 0.5 };
		struct llm_budget hb;
		llm_budget_init(&hb, &half);
		setenv("KOPT_LLM_BACKOFF_MS", not_ms[i], 1);
		rc = call_dead(&cfg, &nb, &hb, &out, &err, &took);
		unsetenv("KOPT_LLM_BACKOFF_MS");
		defaulted += rc == -1 && out.attempts == 1 && has(err.buf, "too little left to retry after 1 attempt");
		if (out.attempts != 1)
			tap_diag("KOPT_LLM_BACKOFF_MS=%s: %d attempts", not_ms[i], out.attempts);
		llm_reply_release(&out);
	}
	TAP_IS_INT(defaulted, 3, "KOPT_LLM_BACKOFF_MS that is not a count of milliseconds (-5, 30x, x): the default 1 s");
	/* a signal in the middle of the wait (a handler without SA_RESTART,
	 * as a progress timer installs): the wait goes on for what is left,
	 * then ends */
	struct sigaction sa = { 0 }, old;
	sa.sa_handler = on_tick;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	struct itimerval it = { { 0, 0 }, { 0, 100000 } }, off = { { 0, 0 }, { 0, 0 } };
	ticks = 0;
	setenv("KOPT_LLM_BACKOFF_MS", "300", 1);
	setitimer(ITIMER_REAL, &it, NULL);
	rc = call_dead(&cfg, &nb, NULL, &out, &err, &took);
	setitimer(ITIMER_REAL, &off, NULL);
	unsetenv("KOPT_LLM_BACKOFF_MS");
	sigaction(SIGALRM, &old, NULL);
	TAP_OK(rc == -1 && out.attempts == 2 && ticks == 1 && took >= 0.3 && took < 5,
	       "a signal 100 ms into a 300 ms back-off: the wait is neither cut short nor stuck (%.2f s, %d signal)", took,
	       (int)ticks);
	llm_reply_release(&out);
	/* a request's own back-off of 1 ms is its own, whatever the variable says */
	nb.backoff_ms = 1;
	setenv("KOPT_LLM_BACKOFF_MS", "3000", 1);
	rc = call_dead(&cfg, &nb, NULL, &out, &err, &took);
	unsetenv("KOPT_LLM_BACKOFF_MS");
	TAP_OK(rc == -1 && out.attempts == 2 && took < 2,
	       "a request's back-off of 1 ms beats KOPT_LLM_BACKOFF_MS=3000: two attempts %.2f s apart", took);
	llm_reply_release(&out);
	strbuf_release(&err);

	/* a control byte in a quoted body is written as \xNN, 0x1f and 0x7f
	 * too; space, tab and newline as a space */
	struct strbuf q = STRBUF_INIT;
	llm_excerpt(&q, "a\x1f" "b\x7f" "c\x01\t\n d", 10, 120);
	TAP_IS_STR(q.buf, "a\\x1fb\\x7fc\\x01   d", "an excerpt writes bytes 0x1f, 0x7f and 0x01 as \\xNN");
	strbuf_release(&q);

	/* a usage count that is not an integer ("12") is unknown: estimated */
	struct run r;
	run_scenario(&r, "anthropic_string_count", "anthropic", &req, NULL, "KOPT_TEST_KEY");
	TAP_OK(r.rc == 0 && r.reply.usage_estimated && r.reply.input_tokens == 12 && r.reply.output_tokens == 27 / 4 + 1,
	       "anthropic: output_tokens \"12\", a string, is estimated from the reply (%ld, %ld)", r.reply.input_tokens,
	       r.reply.output_tokens);
	run_release(&r);
}

static char *read_text(const char *rel)
{
	char path[1024];
	struct strbuf sb = STRBUF_INIT;
	snprintf(path, sizeof path, "%s/%s", srcdir, rel);
	if (strbuf_read_file(&sb, path) < 0)
		kopt_die("cannot read %s", path);
	return strbuf_detach(&sb);
}

/* each provider's reader of a 2xx body, on bodies of every wrong shape:
 * -1 and the reason, word for word; and on good ones, what it reads */
static void t_parse(void)
{
	static const struct {
		const struct llm_provider *p;
		const char *body, *err;
	} bad[] = {
		{ &llm_anthropic, "[1]", "llm: anthropic reply is not a JSON object" },
		{ &llm_anthropic, "{}", "llm: anthropic reply has no content" },
		{ &llm_anthropic, "{\"content\":{}}", "llm: anthropic reply: content is not an array" },
		{ &llm_anthropic, "{\"content\":[{\"text\":\"x\"}]}", "llm: anthropic reply: content[0] has no type" },
		{ &llm_anthropic, "{\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\"}]}",
		  "llm: anthropic reply: content[1].text is missing" },
		{ &llm_anthropic, "{\"content\":[{\"type\":\"text\",\"text\":3}]}",
		  "llm: anthropic reply: content[0].text is not a string" },
		{ &llm_anthropic, "{\"content\":[{\"type\":\"tool_use\",\"id\":\"t\"}]}",
		  "llm: anthropic reply has no text block in content" },
		{ &llm_anthropic, "{\"content\":[]}", "llm: anthropic reply has no text block in content" },
		{ &llm_openai, "[1]", "llm: openai reply is not a JSON object" },
		{ &llm_openai, "{}", "llm: openai reply has no choices" },
		{ &llm_openai, "{\"choices\":{}}", "llm: openai reply: choices is not an array" },
		{ &llm_openai, "{\"choices\":[]}", "llm: openai reply: choices is empty" },
		{ &llm_openai, "{\"choices\":[{}]}", "llm: openai reply: choices[0].message is missing" },
		{ &llm_openai, "{\"choices\":[{\"message\":\"hi\"}]}", "llm: openai reply: choices[0].message is not an object" },
		{ &llm_openai, "{\"choices\":[{\"message\":{\"content\":null}}]}",
		  "llm: openai reply has no choices[0].message.content" },
		{ &llm_openai, "{\"choices\":[{\"message\":{}}]}", "llm: openai reply has no choices[0].message.content" },
		{ &llm_openai, "{\"choices\":[{\"message\":{\"content\":null,\"refusal\":\"I cannot help with that.\"}}]}",
		  "llm: openai reply is a refusal: I cannot help with that." },
		{ &llm_openai, "{\"choices\":[{\"message\":{\"content\":5}}]}",
		  "llm: openai reply: choices[0].message.content is not text" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct llm_reply r;
		struct strbuf e = STRBUF_INIT;
		llm_reply_init(&r);
		strbuf_addstr(&e, "");
		int rc = bad[i].p->parse(bad[i].body, strlen(bad[i].body), &r, &e);
		if (rc == -1 && strcmp(e.buf, bad[i].err) == 0)
			right++;
		else
			tap_diag("%s %s: %d '%s'", bad[i].p->name, bad[i].body, rc, e.buf);
		llm_reply_release(&r);
		strbuf_release(&e);
	}
	TAP_IS_INT(right, (int)(sizeof bad / sizeof bad[0]), "replies of the wrong shape: -1, with the reason word for word");

	/* Anthropic: the text blocks joined, other blocks passed over, the
	 * cache's tokens counted as input, max_tokens as a cut reply */
	const char *a = "{\"content\":[{\"type\":\"text\",\"text\":\"one \"},{\"type\":\"tool_use\",\"id\":\"t\"},"
			"{\"type\":\"text\",\"text\":\"two\"}],\"stop_reason\":\"max_tokens\",\"usage\":{\"input_tokens\":10,"
			"\"cache_creation_input_tokens\":5,\"cache_read_input_tokens\":7,\"output_tokens\":3}}";
	struct llm_reply r;
	struct strbuf e = STRBUF_INIT;
	llm_reply_init(&r);
	int rc = llm_anthropic.parse(a, strlen(a), &r, &e);
	TAP_OK(rc == 0 && strcmp(r.text.buf, "one two") == 0 && r.truncated && r.input_tokens == 22 &&
	       r.cached_tokens == 7 && r.output_tokens == 3,
	       "anthropic: text blocks joined, a tool block passed over, cache tokens in the input, max_tokens cut");
	llm_reply_release(&r);
	/* OpenAI: content as parts, the cached prompt tokens, length as a cut reply */
	const char *o = "{\"choices\":[{\"message\":{\"content\":\"hello\"},\"finish_reason\":\"length\"}],"
			"\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":9,\"prompt_tokens_details\":{\"cached_tokens\":32}}}";
	llm_reply_init(&r);
	rc = llm_openai.parse(o, strlen(o), &r, &e);
	TAP_OK(rc == 0 && strcmp(r.text.buf, "hello") == 0 && r.truncated && r.input_tokens == 40 && r.cached_tokens == 32 &&
	       r.output_tokens == 9 && r.stop_reason && strcmp(r.stop_reason, "length") == 0,
	       "openai: the content, length as a cut reply, the cached prompt tokens");
	llm_reply_release(&r);
	/* every count as the provider gives it, the smallest ones too; one
	 * below zero or not a number: none cached */
	static const struct { const char *v; long want; } cached[] = {
		{ "0", 0 }, { "1", 1 }, { "2", 2 }, { "39", 39 }, { "-1", 0 }, { "\"3\"", 0 }, { "1.5", 0 },
	};
	int same = 0;
	for (size_t i = 0; i < sizeof cached / sizeof *cached; i++) {
		char *oc = xasprintf("{\"choices\":[{\"message\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}],"
				     "\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":1,"
				     "\"prompt_tokens_details\":{\"cached_tokens\":%s}}}", cached[i].v);
		llm_reply_init(&r);
		if (llm_openai.parse(oc, strlen(oc), &r, &e) == 0 && r.cached_tokens == cached[i].want && r.input_tokens == 40)
			same++;
		else
			tap_diag("cached_tokens %s: read %ld, want %ld", cached[i].v, r.cached_tokens, cached[i].want);
		llm_reply_release(&r);
		free(oc);
	}
	TAP_IS_INT(same, (int)(sizeof cached / sizeof *cached),
		   "openai: cached_tokens as given down to 1; below zero or not an integer: none");
	const char *f = "{\"choices\":[{\"message\":{\"content\":\"done\"},\"finish_reason\":\"stop\"}]}";
	llm_reply_init(&r);
	rc = llm_openai.parse(f, strlen(f), &r, &e);
	TAP_OK(rc == 0 && !r.truncated && r.input_tokens < 0 && r.output_tokens < 0 && r.cached_tokens == 0,
	       "openai: stop is a whole reply; no usage: the counts unknown (%ld, %ld)", r.input_tokens, r.output_tokens);
	llm_reply_release(&r);
	strbuf_release(&e);
}

/* each provider's builder of a request body, on a request with text that
 * is not UTF-8 (the system prompt, an earlier turn, the user prompt; for
 * Anthropic also the prompt split at user_stable for its cache): -1, the
 * reason word for word, and no body; on the same request made good, 0 and
 * a body that is a JSON object naming the model */
static void t_build(void)
{
	static const struct {
		int sys, turn, user;
		size_t stable;
		const char *what;
	} bad[] = {
		{ 1, 0, 0, 0, "system prompt" },
		{ 0, 1, 0, 0, "text of an earlier turn" },
		{ 0, 0, 1, 0, "user prompt" },
		{ 0, 1, 0, 3, "text of an earlier turn" },
		{ 0, 0, 1, 3, "user prompt" },
	};
	const struct llm_provider *pv[] = { &llm_openai, &llm_anthropic };
	int right = 0, n = 0;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
			struct kopt_llm cfg = cfg_for(pv[k]->name, NULL, "KEY");
			struct llm_turn turns[2] = { { LLM_USER, "first" }, { LLM_ASSISTANT, bad[i].turn ? "no \xff" : "ok" } };
			struct llm_request q = { 0 };
			q.system = bad[i].sys ? "sys \xc3" : "sys";
			q.turns = turns;
			q.nturns = 2;
			q.user = bad[i].user ? "now \xff" : "now then";
			q.user_stable = bad[i].stable;
			struct strbuf body = STRBUF_INIT, e = STRBUF_INIT;
			strbuf_addstr(&body, "");
			strbuf_addstr(&e, "");
			char *want = xasprintf("llm: %s: the %s is not valid UTF-8", pv[k]->name, bad[i].what);
			int rc = pv[k]->build(&cfg, &q, 100, &body, &e);
			n++;
			if (rc == -1 && strcmp(e.buf, want) == 0 && body.len == 0)
				right++;
			else
				tap_diag("%s, %s: %d '%s', %zu bytes of body", pv[k]->name, bad[i].what, rc, e.buf, body.len);
			free(want);
			strbuf_release(&body);
			strbuf_release(&e);
		}
	TAP_IS_INT(right, n, "a request that is not UTF-8: -1, the reason word for word, no body (each provider)");
	int good = 0;
	for (size_t k = 0; k < 2; k++) {
		struct kopt_llm cfg = cfg_for(pv[k]->name, NULL, "KEY");
		struct llm_turn turns[2] = { { LLM_USER, "first" }, { LLM_ASSISTANT, "ok" } };
		struct llm_request q = { 0 };
		q.system = "sys";
		q.turns = turns;
		q.nturns = 2;
		q.user = "now then";
		q.user_stable = 3;
		struct strbuf body = STRBUF_INIT, e = STRBUF_INIT;
		strbuf_addstr(&body, "");
		strbuf_addstr(&e, "");
		int rc = pv[k]->build(&cfg, &q, 100, &body, &e);
		json_t *j = rc == 0 ? json_loadb(body.buf, body.len, 0, NULL) : NULL;
		if (json_is_object(j) && json_is_string(json_object_get(j, "model")) &&
		    strcmp(json_string_value(json_object_get(j, "model")), cfg.model) == 0 && e.len == 0)
			good++;
		else
			tap_diag("%s: %d '%s' '%s'", pv[k]->name, rc, e.buf, body.buf);
		json_decref(j);
		strbuf_release(&body);
		strbuf_release(&e);
	}
	TAP_IS_INT(good, 2, "the same request in UTF-8: 0 and a JSON object naming the model (each provider)");
	/* the temperature: a spec's temperature = 0 (greedy sampling, the
	 * field's lower bound) is sent as 0, not left to the server's default
	 * (1 at both); only a negative one leaves it out */
	static const double temps[] = { 0, 0.2, -1 };
	int sent = 0;
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof temps / sizeof *temps; i++) {
			struct kopt_llm cfg = cfg_for(pv[k]->name, NULL, "KEY");
			cfg.temperature = temps[i];
			struct llm_request q = { 0 };
			q.user = "now then";
			struct strbuf body = STRBUF_INIT, e = STRBUF_INIT;
			strbuf_addstr(&body, "");
			strbuf_addstr(&e, "");
			int rc = pv[k]->build(&cfg, &q, 100, &body, &e);
			json_t *j = rc == 0 ? json_loadb(body.buf, body.len, 0, NULL) : NULL;
			json_t *t = json_object_get(j, "temperature");
			if (rc == 0 && (temps[i] < 0 ? !t : json_is_number(t) && json_number_value(t) == temps[i]))
				sent++;
			else
				tap_diag("%s, temperature %g: %d '%s'", pv[k]->name, temps[i], rc, body.buf);
			json_decref(j);
			strbuf_release(&body);
			strbuf_release(&e);
		}
	TAP_IS_INT(sent, 6, "a temperature of 0 or 0.2 is sent as it is, a negative one is left out (each provider)");
}

/* the wait between attempts, to the millisecond: doubling from the base,
 * the server's Retry-After where longer, the cap over both, and no
 * overflow however many attempts */
static void t_backoff(void)
{
	TAP_OK(llm_backoff_s(1000, 60000, 1, 0) == 1.0 && llm_backoff_s(1000, 60000, 2, 0) == 2.0 &&
	       llm_backoff_s(1000, 60000, 4, 0) == 8.0 && llm_backoff_s(250, 60000, 3, 0) == 1.0,
	       "back-off: the base in seconds, doubled at each attempt after the first (%g, %g, %g, %g)",
	       llm_backoff_s(1000, 60000, 1, 0), llm_backoff_s(1000, 60000, 2, 0), llm_backoff_s(1000, 60000, 4, 0),
	       llm_backoff_s(250, 60000, 3, 0));
	TAP_OK(llm_backoff_s(1000, 60000, 2, 5.5) == 5.5 && llm_backoff_s(1000, 60000, 4, 5.5) == 8.0,
	       "back-off: the server's Retry-After where it is longer, the doubling where that is");
	TAP_OK(llm_backoff_s(1000, 60000, 7, 0) == 60.0 && llm_backoff_s(1000, 60000, 2, 90) == 60.0 &&
	       llm_backoff_s(1000, 60000, 6, 0) == 32.0,
	       "back-off: at most the cap, Retry-After included (attempt 6: 32 s, 7: 60 s)");
	double far = llm_backoff_s(1, 1000000000L, 25, 0), huge = llm_backoff_s(1, 1000000000L, 5000, 0);
	TAP_OK(far == ldexp(0.001, 24) && huge == 1e6,
	       "back-off: 1 ms doubled 24 times is 16777.216 s, and 5000 attempts reach the cap, not an overflow "
	       "(%g, %g)", far, huge);
}

int main(void)
{
	t_backoff();
	srcdir = getenv("top_srcdir");
	if (!srcdir || !*srcdir)
		srcdir = ".";
	python = KOPT_TEST_PYTHON[0] ? KOPT_TEST_PYTHON : "python3";
	if (!mkdtemp(tmpdir))
		kopt_die("mkdtemp: %s", strerror(errno));
	/* the server is on 127.0.0.1: never through a proxy */
	setenv("no_proxy", "127.0.0.1,localhost", 1);
	setenv("NO_PROXY", "127.0.0.1,localhost", 1);
	setenv("KOPT_TEST_KEY", SECRET, 1);
	unsetenv("KOPT_TEST_NO_SUCH_KEY");
	signal(SIGPIPE, SIG_IGN);

	struct server probe;
	int st = server_start(&probe, "openai_ok");
	server_stop(&probe);
	if (st == 1) {
		printf("1..0 # SKIP %s not found: the replay server cannot run\n", python);
		return 0;
	}

	char *src = read_text("tests/llm/replies/softmax_kernel.py");
	struct llm_kernel_prompt kp = {
		.kernel_name = KERNEL, .source = src,
		.time_us = 6.1, .calls = 1, .share = 0.12, .bytes = 262144, .achieved_gbs = 43,
		.peak_gbs = 4250, .device = "NVIDIA H200",
		.diagnosis = "memory-bound, persistent reduction over 512 columns; exp computed twice",
		.strategy = "reuse the exponentials of the first pass",
	};
	struct strbuf up = STRBUF_INIT;
	llm_prompt_kernel(&kp, &up);
	prompt_user = strbuf_detach(&up);

	http_global_init();
	t_http();
	t_openai_ok();
	t_anthropic_ok();
	t_retries();
	t_malformed();
	t_budget();
	t_replies();
	t_secrets();
	t_scrub_encoded();
	t_scrub_halves();
	t_scrub_short();
	t_endpoint();
	t_error_lengths();
	t_url_slashes();
	t_cache();
	t_parse();
	t_build();
	t_many();
	t_edges();
	t_limits();
	http_global_cleanup();

	free(prompt_user);
	free(src);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", tmpdir);
	return tap_done();
}
