/*
 * agents/llm.h: the LLM agents: the roles played by a model (coder.c,
 * at the end of this header) and their backends. They stand on the
 * candidate library (agents/candidate.h) and call nothing of the
 * built-in agents; the dispatcher (agents/agent.c) picks them role by
 * role.
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

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../common/util.h"
#include "../lang/spec.h"
#include "candidate.h"

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
 * "llm budget: 1800.2 s of wall time used of 1800.0 s". A call needs some
 * wall time: with less than a second, or a twentieth of the wall budget,
 * left, the wall budget counts as used.
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
	size_t user_stable;           /* its first user_stable bytes are the same in every round of a
				       * kernel (the prompt's context): a provider that caches
				       * prompts explicitly is told so (Anthropic: cache_control);
				       * 0 for none */

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
	long cached_tokens;   /* of the input tokens, those read from the provider's prompt cache (0 when
			       * the reply does not say) */
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

/*
 * n samples of one request at once: up to n calls of llm_complete() in
 * parallel threads, as many as the budget allows (each call needs a call
 * and its prompt's tokens plus a reply's share of the tokens left); out[i]
 * and err[i] are each call's (arrays of n, out[i] initialised). Charges
 * the calls and tokens to budget. Returns how many calls were made, each
 * with out[i] filled (0) or err[i] set (-1, its rc in rc[i]); -1 with
 * err[0] when not even one may start.
 */
int llm_complete_many(const struct kopt_llm *cfg, const struct llm_request *req, int n,
		      struct llm_budget *budget, struct llm_reply *out, struct strbuf *err, int *rc);

/* Appends to url the endpoint a call with cfg posts to: the provider's
 * path (/chat/completions, /v1/messages) after cfg->url without its
 * trailing slashes, or after the provider's own base URL where cfg->url
 * is NULL or empty. -1 for an unknown provider (nothing appended). */
int llm_endpoint(const struct kopt_llm *cfg, struct strbuf *url);

/* Replaces every occurrence of secret in s with "[redacted]": its bytes, its
 * base64 (standard and URL-safe, with and without padding, and the part of
 * it that any of the three alignments in a longer encoded text keeps), and
 * each of its halves when it has 16 bytes or more (forms shorter than 8
 * bytes are left: they would match anything). NULL or "" secret: no-op. */
void llm_scrub(struct strbuf *s, const char *secret);

/* ---- prompts ---- */

/* The system prompt of the kernel-writing roles (static storage). */
const char *llm_prompt_system(void);

/* A text's tokens, estimated from its bytes (four a token, the budget's rule). */
long llm_tokens_of(size_t bytes);

/* b bytes as people read them: "512 B", "1.05 MB" (powers of 1000) */
void llm_add_bytes(struct strbuf *out, double b);

/*
 * What the coder (and, on repair, the debugger) knows about one kernel and
 * its search so far. Strings are not owned; NULL, 0 or a negative number
 * means unknown (each field says which) and the line is left out.
 */
struct llm_kernel_prompt {
	const char *kernel_name; /* e.g. "triton_poi_fused_convolution_0"; required */
	const char *source;      /* the kernel module as Inductor wrote it; required */
	const char *heuristic;   /* Inductor's ("pointwise", "reduction", ...), "jit" for a standalone kernel */

	/* the device (the worker's environment and the profile's measurement) */
	const char *device;      /* e.g. "NVIDIA H200" */
	const char *device_cc;   /* compute capability, e.g. "9.0" */
	int sms;                 /* streaming multiprocessors; 0 unknown */
	double memory_gib;       /* its memory; 0 unknown */
	double peak_gbs;         /* the device's measured copy bandwidth, GB/s; <= 0 unknown */
	double peak_tflops;      /* its FP32 peak, TFLOP/s; <= 0 unknown */
	bool peak_measured;      /* peak_tflops was measured on the device (else the datasheet's) */

	/* its launch (the capture) */
	const char *config;      /* the launch config as JSON text */
	const char *grid;        /* e.g. "(4096, 1, 1)": programs per axis */
	const char *args;        /* its tensor arguments, e.g. "in_ptr0 float32[4096, 4096] (67.11 MB), ..." */
	const char *aten;        /* the ATen ops it implements, e.g. "aten.mul, aten._softmax" */
	long registers;          /* registers per thread (compile metadata); <= 0 not sent */
	long spills;             /* registers spilled per thread (Triton's n_spills); read only with registers */
	double occupancy;        /* warps resident per SM over the most an SM holds, 0..1; <= 0 unknown */

	/* the profile row */
	double time_us;      /* time per call in microseconds; < 0 unknown */
	long calls;          /* launches per model run; <= 0 unknown */
	double share;        /* share of the model's GPU time, 0..1; < 0 unknown */
	double bytes;        /* bytes moved per call; < 0 unknown */
	double achieved_gbs; /* achieved bandwidth, GB/s; < 0 unknown */
	double dram_bytes;   /* DRAM bytes a launch moved, as the GPU's counters saw it; <= 0 unknown */
	double flops;        /* floating-point operations per launch; <= 0 unknown */
	const char *flops_how; /* how flops was found, e.g. "7 per element x 16.8M elements, counted in the source" */

	const char *diagnosis; /* the analyst's text */
	const char *lessons;   /* the long-term memory's lessons for the kernel's class, Markdown lines */
	const char *strategy;  /* the planner's text */

	/* the search so far */
	const char *best;          /* the best passing candidate's source; NULL when none passed */
	const char *best_config;   /* its launch config as JSON text; NULL: Inductor's */
	const char *best_label;    /* which it is, e.g. "c2, llm rewrite" */
	double best_speedup;       /* its kernel speedup over the original */
	double best_us;            /* its time per call; <= 0 unknown */
	double best_base_us;       /* the original's, measured beside it; <= 0 unknown */
	const char *const *attempts; /* one Markdown line each, newest first */
	size_t nattempts;
	const char *notes;         /* what the model wrote last round to avoid and to prioritize */

	/* on repair: the candidate that failed and why */
	const char *candidate;   /* its source; NULL when this is not a repair */
	const char *gate;        /* the gate that failed, e.g. "correctness" */
	const char *gate_reason; /* its numbers and reason, e.g. "max abs error 3.1e-02 > atol 1e-04 (seed 2)" */

	long max_tokens;         /* the whole prompt's size at most (estimated); <= 0 no limit */
};

/*
 * The prompt is two parts, the stable one first so that a provider's
 * prompt cache can hold it (agents/llm/prompt.c gives the sections, their
 * order, and which are cut first when the prompt is over its budget):
 *
 * llm_prompt_context() appends the part that is the same for every round
 * of a kernel: the kernel, its device, launch and profile, the diagnosis,
 * the lessons, its source and the rules. It keeps within max_tokens less
 * room for a round (the source's size again, for a best candidate, and
 * LLM_ROUND_ROOM).
 *
 * llm_prompt_round() appends a round's part: the best so far, the attempts,
 * the notes carried from the last round, the strategy, the candidate to
 * repair, and the task with the answer's format; it keeps within what
 * max_tokens leaves after a context of context_len bytes.
 *
 * llm_prompt_kernel() appends both and returns the context's length.
 */
#define LLM_ROUND_ROOM 800L
void llm_prompt_context(const struct llm_kernel_prompt *p, struct strbuf *out);
void llm_prompt_round(const struct llm_kernel_prompt *p, size_t context_len, struct strbuf *out);
size_t llm_prompt_kernel(const struct llm_kernel_prompt *p, struct strbuf *out);

/*
 * Takes the kernel module out of a reply: the fenced block (```python, ```py
 * or a bare ```) that defines `def <kernel_name>(`; the last such block when
 * there are several. Appends it to out (without the fences, ending in a
 * newline) and returns 0; -1 with a reason in err when no block defines the
 * kernel or the block is not closed (a truncated reply).
 */
int llm_extract_kernel(const char *reply_text, const char *kernel_name,
		       struct strbuf *out, struct strbuf *err);

/*
 * Takes a launch config out of a reply: the last fenced ```json block
 * that holds a JSON object. Returns 1 with *config set (new reference), 0
 * when the reply has no such block, -1 with a reason in err when the last
 * json block does not parse as an object.
 */
int llm_extract_config(const char *reply_text, json_t **config, struct strbuf *err);

/*
 * The notes of a reply: the text of its last line outside code blocks that
 * starts "Avoid:" and of its last that starts "Prioritize:" (either may be
 * set off as a list item or in bold), each cut to LLM_NOTE_MAX bytes at a
 * character boundary; appended to avoid and prioritize (nothing when absent).
 */
#define LLM_NOTE_MAX 300
void llm_extract_notes(const char *reply_text, struct strbuf *avoid, struct strbuf *prioritize);

/* ---- the LLM roles (agents/llm/coder.c; the usage: agents/llm/run.c) ---- */

/*
 * What the LLM roles need of the built-in ones, handed in by the
 * dispatcher (agents/agent.c) as ninja's Builder is handed its
 * CommandRunner: the analyst's diagnosis and the planner's ranking go into
 * the prompts, the built-in search and the tuner's descent fill the slots
 * the model leaves. agents/llm/ calls nothing of agents/builtin/ itself
 * (tests/agents-layers.sh); a test hands it a double.
 */
struct llm_builtin {
	/* the analyst: 1 = leave k alone, 0 = go on; *why, the diagnosis, the caller's */
	int (*analyze)(const struct agent_kernel *k, char **why);
	/* the planner: strategy names best first (new reference); *why, when
	 * why is not NULL, what ranked them (the caller's) */
	json_t *(*plan)(const struct agent_kernel *k, const char *memory, const char *scope, char **why);
	/* the built-in search's candidate req->index, as agent_propose's */
	int (*propose)(const struct agent_request *req, const char *memory, struct agent_reply *reply);
	/* the tuner's next step of the descent around the best passing
	 * candidate, or NULL when every move was tried; new reference */
	json_t *(*descent)(const struct agent_request *req);
};

/* candidate req->index when the coder is an LLM: rounds of the model's
 * replies, repairs, the built-in tuner on its best, the built-in search
 * after it (coder.c says in which order) */
int agent_llm_propose(const struct agent_request *req, const struct llm_builtin *builtin, struct agent_reply *reply);
/* the LLM debugger's repair of fix, a candidate of the built-in coder */
int agent_llm_repair(const struct agent_request *req, const struct llm_builtin *builtin, const struct agent_try *fix,
		     struct agent_reply *reply);
/* the LLM tuner: a launch config as JSON, given what was tried */
int agent_llm_tune(const struct agent_request *req, const struct llm_builtin *builtin, struct agent_reply *reply);
/* the context digest of agents with an LLM role: the trajectory as their
 * prompts and choices read it (the dispatcher puts AGENT_LLM_VERSION
 * before it). Caller frees. */
char *agent_llm_digest(const struct agent_request *req);
/* the prompt the coder sends for req's next round (context, then the
 * round's part: no repair), appended to out; returns the context's length */
size_t agent_llm_prompt(const struct agent_request *req, const struct llm_builtin *builtin, struct strbuf *out);

/* LLM use, summed per LLM model over candidates (each candidate's "llm") */
struct agent_usage_row {
	char *model;                /* owned */
	int calls;
	long in, cached, out;       /* input tokens (of them, read from the provider's cache), output */
};
struct agent_usage {
	struct agent_usage_row *rows;
	size_t n, cap;
};
void agent_usage_add(struct agent_usage *u, const json_t *candidate);
/* one Markdown line: calls and tokens per LLM model and, where the spec
 * gives that model's prices (its llm() in cfg), the money; nothing when
 * no model was called */
void agent_usage_line(const struct agent_usage *u, const struct kopt_agents *cfg, struct strbuf *md);
void agent_usage_release(struct agent_usage *u);

#endif
