/*
 * agents/llm.h: the LLM backends of the agents.
 *
 * llm_complete() sends one conversation (a system prompt, prior turns, a user
 * prompt) to an OpenAI-compatible chat-completions endpoint or to the
 * Anthropic Messages API, retries 429, 5xx and transport failures with
 * exponential backoff (honouring Retry-After up to a cap), charges the call
 * and its tokens to a per-kernel budget, and hands back the text of the reply.
 * llm_prompt_kernel() writes the coder's and debugger's prompt;
 * llm_extract_kernel() takes the kernel module out of the reply.
 *
 * Secrets: the API key is read from the environment variable that the spec
 * names (cfg->key_env) at call time, sent only in a request header, over
 * https or to a loopback address (cfg->insecure_http allows plain http
 * elsewhere), and scrubbed (llm_scrub) from every string this module
 * returns: the error message, the reply text and the stop reason. Nothing
 * here logs or prints.
 *
 * Errors: functions return 0 or -1; on -1 one line is appended to err,
 * lowercase, no full stop, starting "llm: " or "llm budget: ".
 */
#ifndef KOPT_LLM_H
#define KOPT_LLM_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/util.h"
#include "../lang/spec.h"

/* ---- budget: one per kernel; the caller owns it and may read every field ---- */

struct llm_budget {
	int max_calls;     /* llm_complete() calls allowed; < 0 no limit */
	long max_tokens;   /* input + output tokens allowed; < 0 no limit */
	double max_wall_s; /* seconds allowed since start; < 0 no limit */
	double start;      /* kopt_now() when the kernel's work began */
	int calls;         /* calls made so far (one per llm_complete that reached the network) */
	long tokens;       /* tokens charged so far (the replies' usage, or an estimate) */
};

/* Limits from the spec's agents block (llm_calls, tokens, wall_s); a NULL a
 * means no limits. start is set to now. */
void llm_budget_init(struct llm_budget *b, const struct kopt_agents *a);

/*
 * 0 when a call needing about need_tokens more tokens may start; else -1 with
 * the limit hit named in err, e.g. "llm budget: 32 calls used of 32",
 * "llm budget: 199500 tokens used of 200000, this prompt needs about 2100",
 * "llm budget: 1800.2 s of wall time used of 1800.0 s".
 */
int llm_budget_check(const struct llm_budget *b, long need_tokens, struct strbuf *err);

/* ---- request and reply ---- */

enum llm_role { LLM_USER, LLM_ASSISTANT };

/* One earlier message of the conversation (e.g. the candidate that failed). */
struct llm_turn {
	enum llm_role role;
	const char *text; /* not owned */
};

/*
 * One request. Only user is required; the retry and timeout fields take their
 * defaults when 0. Nothing here is owned by the request.
 */
struct llm_request {
	const char *system;           /* system prompt; NULL for none */
	const struct llm_turn *turns; /* prior turns, oldest first, alternating, starting with a user turn */
	size_t nturns;
	const char *user;             /* this turn's user prompt */

	double timeout_s;         /* per HTTP attempt; 0 means 300 (capped by the wall budget left) */
	double connect_timeout_s; /* 0 means 10 */
	int max_attempts;         /* HTTP attempts in all, retries included; 0 means 5 */
	long backoff_ms;          /* first retry's wait, doubled each retry; 0 means $KOPT_LLM_BACKOFF_MS, else 1000 */
	long backoff_max_ms;      /* cap on any one wait, Retry-After included; 0 means 60000 */
};

/* The reply; the caller owns it: llm_reply_init before, llm_reply_release after. */
struct llm_reply {
	struct strbuf text;   /* the model's text (Anthropic text blocks joined) */
	long input_tokens;    /* from the reply's usage; estimated (bytes / 4) when absent */
	long output_tokens;
	bool usage_estimated; /* the server sent no usage: the counts are estimates */
	int attempts;         /* HTTP attempts made (1 + retries) */
	long status;          /* HTTP status of the last attempt; 0 when none came */
	char *stop_reason;    /* "stop", "length", "end_turn", "max_tokens", ...; NULL when absent */
	bool truncated;       /* the model stopped at max_tokens: the text is cut short */
};

void llm_reply_init(struct llm_reply *r);
void llm_reply_release(struct llm_reply *r);

/*
 * Sends req to the provider of cfg ("openai": POST {url}/chat/completions,
 * Authorization: Bearer; "anthropic": POST {url}/v1/messages, x-api-key,
 * anthropic-version 2023-06-01). cfg->url NULL means the provider's public
 * endpoint; cfg->key_env NULL means no key (a local server); cfg->max_tokens
 * <= 0 means 8192 (always clamped to the tokens the budget has left);
 * cfg->temperature < 0 leaves it to the server. Toward api.openai.com the
 * limit goes as max_completion_tokens, elsewhere as max_tokens.
 *
 * Checks the budget first (refused calls do not reach the network), then
 * charges one call and the reply's tokens to it. Returns 0 with out filled,
 * or -1 with out->attempts and out->status set and one line appended to err:
 * a refused budget, a missing key, an HTTP error after the retries ran out, a
 * timeout, a malformed reply (not JSON, missing fields, wrong types, a
 * truncated body), or an empty answer. Never prints.
 */
int llm_complete(const struct kopt_llm *cfg, const struct llm_request *req,
		 struct llm_budget *budget, struct llm_reply *out, struct strbuf *err);

/* Replaces every occurrence of secret in s with "[redacted]": its bytes, its
 * base64 (standard and URL-safe, with and without padding, and the part of
 * it that any of the three alignments in a longer encoded text keeps), and
 * each of its halves when it has 16 bytes or more (forms shorter than 8
 * bytes are left: they would match anything). NULL or "" secret: no-op. */
void llm_scrub(struct strbuf *s, const char *secret);

/* ---- prompts ---- */

/* The system prompt of the kernel-writing roles (static storage). */
const char *llm_prompt_system(void);

/*
 * What the coder (and, on repair, the debugger) knows about one kernel.
 * Strings are not owned; NULL or a negative number means unknown and the
 * line is left out of the prompt.
 */
struct llm_kernel_prompt {
	const char *kernel_name; /* e.g. "triton_poi_fused_convolution_0"; required */
	const char *source;      /* the kernel module as Inductor wrote it; required */

	/* the profile row */
	double time_us;      /* time per call in microseconds */
	long calls;          /* launches per model run */
	double share;        /* share of the model's GPU time, 0..1 */
	double bytes;        /* bytes moved per call */
	double achieved_gbs; /* achieved bandwidth, GB/s */
	double peak_gbs;     /* the device's measured copy bandwidth, GB/s */
	const char *device;  /* e.g. "NVIDIA H200" */

	const char *diagnosis; /* the analyst's text */
	const char *strategy;  /* the planner's text */

	/* on repair: the candidate that failed and why */
	const char *candidate;   /* its source; NULL when this is not a repair */
	const char *gate;        /* the gate that failed, e.g. "correctness" */
	const char *gate_reason; /* its numbers and reason, e.g. "max abs error 3.1e-02 > atol 1e-04 (seed 2)" */
};

/* Appends the user prompt for p to out. */
void llm_prompt_kernel(const struct llm_kernel_prompt *p, struct strbuf *out);

/*
 * Takes the kernel module out of a reply: the fenced block (```python, ```py
 * or a bare ```) that defines `def <kernel_name>(`; the last such block when
 * there are several. Appends it to out (without the fences, ending in a
 * newline) and returns 0; -1 with a reason in err when no block defines the
 * kernel or the block is not closed (a truncated reply).
 */
int llm_extract_kernel(const char *reply_text, const char *kernel_name,
		       struct strbuf *out, struct strbuf *err);

#endif
