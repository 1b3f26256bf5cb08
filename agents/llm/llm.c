/*
 * agents/llm/llm.c: llm_complete(), the budget, retries, keys and scrubbing.
 *
 * One call:
 *   1. pick the provider, read the key from $key_env (never from the spec);
 *      a key goes over plain http only to a loopback address, unless the
 *      spec says insecure_http = true;
 *   2. estimate the prompt's tokens (bytes / 4) and ask the budget; a refused
 *      call does not reach the network and costs nothing;
 *   3. charge one call, then POST up to max_attempts times: 408, 429, 5xx and
 *      transport failures (timeout, refused, reset, empty or truncated
 *      response) are retried after backoff_ms * 2^(n-1), or after
 *      Retry-After when the server asks for longer, any one wait capped at
 *      backoff_max_ms and by the wall time left; other statuses fail at once;
 *   4. a 2xx body is parsed by the provider; a malformed one fails without a
 *      retry (it is a failed candidate, and it costs the prompt's tokens);
 *   5. charge the reply's tokens (usage, else estimates), then scrub the key
 *      out of every string handed back: its bytes, its base64 at each
 *      alignment and its halves (llm_scrub).
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "provider.h"
#include "../../common/http.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct llm_provider *const llm_providers[] = { &llm_openai, &llm_anthropic };

/* ---- budget ---- */

void llm_budget_init(struct llm_budget *b, const struct kopt_agents *a)
{
	b->max_calls = a ? a->llm_calls : -1;
	b->max_tokens = a ? a->tokens : -1;
	b->max_wall_s = a ? a->wall_s : -1;
	b->start = kopt_now();
	b->calls = 0;
	b->tokens = 0;
}

/* wall seconds left, or a huge number when unlimited */
static double llm_wall_left(const struct llm_budget *b)
{
	if (!b || b->max_wall_s < 0)
		return 1e30;
	return b->max_wall_s - (kopt_now() - b->start);
}

int llm_budget_check(const struct llm_budget *b, long need_tokens, struct strbuf *err)
{
	if (b->max_calls >= 0 && b->calls >= b->max_calls) {
		strbuf_addf(err, "llm budget: %d calls used of %d", b->calls, b->max_calls);
		return -1;
	}
	if (b->max_tokens >= 0 && b->tokens >= b->max_tokens) {
		strbuf_addf(err, "llm budget: %ld tokens used of %ld", b->tokens, b->max_tokens);
		return -1;
	}
	if (b->max_tokens >= 0 && need_tokens > b->max_tokens - b->tokens) {
		strbuf_addf(err, "llm budget: %ld tokens used of %ld, this call needs about %ld",
			    b->tokens, b->max_tokens, need_tokens);
		return -1;
	}
	/* a call needs some time: with less than a second, or a twentieth
	 * of the wall budget, left, none starts (a sliver left by a call that
	 * timed out a few milliseconds early would only time out again) */
	if (b->max_wall_s >= 0 && llm_wall_left(b) <= fmin(1.0, b->max_wall_s / 20)) {
		strbuf_addf(err, "llm budget: %.1f s of wall time used of %.1f s",
			    kopt_now() - b->start, b->max_wall_s);
		return -1;
	}
	return 0;
}

/* ---- reply ---- */

void llm_reply_init(struct llm_reply *r)
{
	strbuf_init(&r->text);
	r->input_tokens = -1;
	r->output_tokens = -1;
	r->cached_tokens = 0;
	r->usage_estimated = false;
	r->attempts = 0;
	r->status = 0;
	r->stop_reason = NULL;
	r->truncated = false;
}

void llm_reply_release(struct llm_reply *r)
{
	strbuf_release(&r->text);
	free(r->stop_reason);
	llm_reply_init(r);
}

/* ---- strings ---- */

/* memmem(), which C11 and POSIX lack */
static const char *llm_find(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
	if (nlen == 0 || hlen < nlen)
		return NULL;
	for (const char *p = hay, *last = hay + (hlen - nlen); p <= last; p++) {
		p = memchr(p, needle[0], (size_t)(last - p) + 1);
		if (!p)
			return NULL;
		if (memcmp(p, needle, nlen) == 0)
			return p;
	}
	return NULL;
}

/* base64 of n bytes into out (NUL-terminated); url: - and _ for + and /; pad: with = */
static void llm_b64(const unsigned char *p, size_t n, bool url, bool pad, struct strbuf *out)
{
	static const char std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	const char *t = url ? safe : std;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		size_t k = n - i >= 3 ? 4 : n - i + 1;
		for (size_t j = 0; j < 4; j++) {
			if (j < k)
				strbuf_addch(out, t[(v >> (18 - 6 * j)) & 63]);
			else if (pad)
				strbuf_addch(out, '=');
		}
	}
}

/* a form of the secret to look for: bytes, and how many base64 characters
 * around a hit hold some of its bytes too (the groups it shares with the
 * text around it) */
struct llm_form {
	char *s;
	size_t len;
	size_t lead, trail;
};

/* adds sb as a form; forms of at least 8 bytes only, but the key itself */
static void llm_form(struct llm_form **forms, size_t *n, size_t *cap, struct strbuf *sb, bool always,
		     size_t lead, size_t trail)
{
	if (sb->len >= 8 || (always && sb->len)) {
		*forms = xgrow(*forms, cap, *n + 1, sizeof **forms);
		struct llm_form *f = &(*forms)[(*n)++];
		f->len = sb->len;
		f->s = strbuf_detach(sb);
		f->lead = lead;
		f->trail = trail;
	}
	strbuf_release(sb);
}

static int llm_longer_first(const void *a, const void *b)
{
	const struct llm_form *x = a, *y = b;
	return x->len < y->len ? 1 : x->len > y->len ? -1 : 0;
}

/*
 * The forms a secret may be seen in, longest first: its bytes; its base64,
 * standard and URL-safe, with and without padding, alone, and as it reads at
 * each of the three alignments inside a longer encoded text (the whole
 * 3-byte groups that hold only key bytes, with the groups on either side
 * that hold some); each of its halves when it has 16 bytes or more. Caller
 * frees (llm_forms_free); *n is set.
 */
static struct llm_form *llm_secret_forms(const char *secret, size_t *n)
{
	struct llm_form *forms = NULL;
	size_t cap = 0, len = strlen(secret);
	const unsigned char *k = (const unsigned char *)secret;
	struct strbuf sb = STRBUF_INIT;
	*n = 0;
	strbuf_addstr(&sb, secret);
	llm_form(&forms, n, &cap, &sb, true, 0, 0);
	for (int url = 0; url < 2; url++) {
		for (int pad = 0; pad < 2; pad++) {
			llm_b64(k, len, url, pad, &sb);
			llm_form(&forms, n, &cap, &sb, false, 0, 0);
		}
		for (size_t skip = 0; skip < 3 && skip < len; skip++) {
			size_t whole = (len - skip) / 3 * 3;
			llm_b64(k + skip, whole, url, false, &sb);
			llm_form(&forms, n, &cap, &sb, false, skip ? 4 : 0, len - skip - whole ? 4 : 0);
		}
	}
	if (len >= 16) {
		strbuf_add(&sb, secret, len / 2);
		llm_form(&forms, n, &cap, &sb, false, 0, 0);
		strbuf_addstr(&sb, secret + len / 2);
		llm_form(&forms, n, &cap, &sb, false, 0, 0);
	}
	if (*n) /* none for an empty secret: qsort's array may not be NULL */
		qsort(forms, *n, sizeof *forms, llm_longer_first);
	return forms;
}

/* a character of either base64 alphabet (padding is not one: a run of
 * '=' after a form's last group is taken apart) */
static bool llm_b64_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '/' || c == '-' || c == '_';
}

void llm_scrub(struct strbuf *s, const char *secret)
{
	static const char mask[] = "[redacted]";
	if (!secret || !*secret || !s->buf || !s->len)
		return;
	size_t nf;
	struct llm_form *forms = llm_secret_forms(secret, &nf);
	for (size_t f = 0; f < nf; f++) {
		const struct llm_form *fm = &forms[f];
		if (s->len >= fm->len && llm_find(s->buf, s->len, fm->s, fm->len)) {
			struct strbuf out = STRBUF_INIT;
			const char *p = s->buf, *end = s->buf + s->len, *hit;
			while ((hit = llm_find(p, (size_t)(end - p), fm->s, fm->len))) {
				const char *from = hit, *to = hit + fm->len;
				for (size_t i = 0; i < fm->lead && from > p && llm_b64_char(from[-1]); i++)
					from--;
				for (size_t i = 0; i < fm->trail && to < end && llm_b64_char(*to); i++)
					to++;
				while (fm->trail && to < end && *to == '=')
					to++;
				strbuf_add(&out, p, (size_t)(from - p));
				strbuf_addstr(&out, mask);
				p = to;
			}
			strbuf_add(&out, p, (size_t)(end - p));
			/* wipe the old copy: it held the secret */
			volatile char *v = s->buf;
			for (size_t i = 0; i < s->len; i++)
				v[i] = 0;
			strbuf_release(s);
			*s = out;
		}
	}
	for (size_t f = 0; f < nf; f++) {
		volatile char *w = forms[f].s;
		for (size_t i = 0; i < forms[f].len; i++)
			w[i] = 0;
		free(forms[f].s);
	}
	free(forms);
}

static void llm_scrub_str(char **s, const char *secret)
{
	if (!*s || !secret || !*secret)
		return;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, *s);
	free(*s);
	llm_scrub(&sb, secret);
	*s = strbuf_detach(&sb);
}

/* ---- keys ---- */

static bool llm_env_name_ok(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* *key = a copy of the key (NULL when the config names no variable); -1 with err */
static int llm_read_key(const struct kopt_llm *cfg, const char *provider, char **key,
			struct strbuf *err)
{
	*key = NULL;
	if (!cfg->key_env || !*cfg->key_env)
		return 0;
	if (!llm_env_name_ok(cfg->key_env)) {
		/* not echoed: a user may have pasted the key itself here */
		strbuf_addstr(err, "llm: key_env must name an environment variable "
			      "(letters, digits and underscores), not hold the key");
		return -1;
	}
	const char *v = getenv(cfg->key_env);
	if (!v || !*v) {
		strbuf_addf(err, "llm: environment variable %s is not set (it should hold the %s API key)",
			    cfg->key_env, provider);
		return -1;
	}
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			strbuf_addf(err, "llm: the key in environment variable %s contains a control character",
				    cfg->key_env);
			return -1;
		}
	*key = xstrdup(v);
	return 0;
}

static void llm_wipe_free(char *s)
{
	if (!s)
		return;
	volatile char *v = s;
	while (*v)
		*v++ = 0;
	free(s);
}

/* ---- retries ---- */

static long llm_backoff_default(void)
{
	const char *e = getenv("KOPT_LLM_BACKOFF_MS");
	if (e && *e) {
		char *end;
		errno = 0;
		long v = strtol(e, &end, 10);
		if (errno == 0 && *end == '\0' && v >= 0)
			return v;
	}
	return 1000;
}

static void llm_sleep(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

double llm_backoff_s(long base_ms, long cap_ms, int attempt, double retry_after_s)
{
	/* doubled at each attempt; in floating point, so no count of
	 * attempts overflows it (past the cap it is the cap) */
	double wait = ldexp((double)base_ms / 1000.0, attempt - 1);
	if (retry_after_s > wait)
		wait = retry_after_s;
	if (wait > (double)cap_ms / 1000.0)
		wait = (double)cap_ms / 1000.0;
	return wait;
}

static bool llm_retryable(int rc, const struct http_response *r)
{
	if (rc < 0) {
		switch (r->fail) {
		case HTTP_FAIL_TIMEOUT:
		case HTTP_FAIL_CONNECT:
		case HTTP_FAIL_EMPTY:
		case HTTP_FAIL_TRUNCATED:
		case HTTP_FAIL_NETWORK:
			return true;
		default:
			return false;
		}
	}
	return r->status == 408 || r->status == 429 || (r->status >= 500 && r->status <= 599);
}

static long llm_estimate_tokens(const struct llm_request *req)
{
	size_t n = strlen(req->user) + (req->system ? strlen(req->system) : 0);
	for (size_t i = 0; i < req->nturns; i++)
		n += req->turns[i].text ? strlen(req->turns[i].text) : 0;
	return (long)(n / 4) + 8 + 4 * (long)req->nturns;
}

static long llm_max_out(const struct kopt_llm *cfg)
{
	return cfg->max_tokens > 0 ? cfg->max_tokens : LLM_DEFAULT_MAX_TOKENS;
}

/* the tokens a call needs left before it is sent: its prompt's (est_in)
 * and the first 1024 of its reply */
static long llm_call_need(const struct kopt_llm *cfg, long est_in)
{
	long max_out = llm_max_out(cfg);
	return est_in + (max_out < 1024 ? max_out : 1024);
}

static const struct llm_provider *llm_provider_of(const char *name)
{
	for (size_t i = 0; i < sizeof llm_providers / sizeof llm_providers[0]; i++)
		if (name && strcmp(name, llm_providers[i]->name) == 0)
			return llm_providers[i];
	return NULL;
}

/* splits "a\nb\n" into a NULL-terminated array pointing into lines (modified) */
static const char **llm_split_lines(struct strbuf *lines)
{
	size_t n = 0, cap = 0;
	const char **v = NULL;
	char *p = lines->buf;
	while (p && *p) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		v = xgrow(v, &cap, n + 2, sizeof *v);
		v[n++] = p;
		if (!nl)
			break;
		p = nl + 1;
	}
	v = xgrow(v, &cap, n + 1, sizeof *v);
	v[n] = NULL;
	return v;
}

static int llm_attempts(const struct llm_provider *pv,
			const struct llm_request *req, struct llm_budget *budget, const char *url,
			const char *const *headers, const char *key, const struct strbuf *body, long est_in,
			struct llm_reply *out, struct strbuf *err)
{
	int max_attempts = req->max_attempts > 0 ? req->max_attempts : 5;
	long base_ms = req->backoff_ms > 0 ? req->backoff_ms : llm_backoff_default();
	long cap_ms = req->backoff_max_ms > 0 ? req->backoff_max_ms : 60000;
	double timeout = req->timeout_s > 0 ? req->timeout_s : 300;
	struct http_response resp;
	struct strbuf last = STRBUF_INIT;
	int rc = -1;

	http_response_init(&resp);
	for (int attempt = 1;; attempt++) {
		double left = llm_wall_left(budget);
		if (left <= 0) {
			if (last.len)
				strbuf_addf(err, "%s; ", last.buf);
			strbuf_addf(err, "llm budget: %.1f s of wall time used of %.1f s",
				    kopt_now() - budget->start, budget->max_wall_s);
			break;
		}
		struct http_request hr = {
			.url = url, .headers = headers, .body = body->buf, .body_len = body->len,
			.connect_timeout_s = req->connect_timeout_s,
			.timeout_s = timeout < left ? timeout : left,
		};
		struct strbuf herr = STRBUF_INIT;
		int hrc = http_post(&hr, &resp, &herr);
		/* before anything quotes the body: an excerpt could cut the key in half */
		llm_scrub(&resp.body, key);
		out->attempts = attempt;
		out->status = resp.status;
		strbuf_reset(&last);
		if (hrc == 0 && resp.status >= 200 && resp.status <= 299) {
			strbuf_release(&herr);
			if (pv->parse(resp.body.buf, resp.body.len, out, err) < 0) {
				if (budget)
					budget->tokens += est_in;
				break;
			}
			rc = 0;
			break;
		}
		if (hrc < 0) {
			strbuf_addf(&last, "llm: %s: %s", pv->name, herr.buf);
		} else {
			strbuf_addf(&last, "llm: %s: http %ld from %s: ", pv->name, resp.status, url);
			llm_error_message(resp.body.buf, resp.body.len, &last);
		}
		strbuf_release(&herr);
		if (!llm_retryable(hrc, &resp) || attempt >= max_attempts) {
			strbuf_addstr(err, last.buf);
			if (attempt > 1)
				strbuf_addf(err, " (after %d attempts)", attempt);
			break;
		}
		double wait = llm_backoff_s(base_ms, cap_ms, attempt, resp.retry_after_s);
		if (wait >= llm_wall_left(budget)) {
			strbuf_addf(err, "%s; llm budget: %.1f s of wall time used of %.1f s, "
				    "too little left to retry after %d attempt%s", last.buf,
				    kopt_now() - budget->start, budget->max_wall_s, attempt,
				    attempt > 1 ? "s" : "");
			break;
		}
		llm_sleep(wait);
	}
	strbuf_release(&last);
	http_response_release(&resp);
	return rc;
}

int llm_endpoint(const struct kopt_llm *cfg, struct strbuf *url)
{
	const struct llm_provider *pv = llm_provider_of(cfg->provider);
	if (!pv)
		return -1;
	const char *base = cfg->url && *cfg->url ? cfg->url : pv->default_url;
	size_t blen = strlen(base);
	while (blen > 0 && base[blen - 1] == '/')
		blen--;
	strbuf_add(url, base, blen);
	strbuf_addstr(url, pv->path);
	return 0;
}

int llm_complete(const struct kopt_llm *cfg, const struct llm_request *req,
		 struct llm_budget *budget, struct llm_reply *out, struct strbuf *err)
{
	const struct llm_provider *pv = llm_provider_of(cfg->provider);
	struct strbuf url = STRBUF_INIT, body = STRBUF_INIT, lines = STRBUF_INIT;
	const char **headers = NULL;
	char *key = NULL;
	int rc = -1;

	llm_reply_release(out);
	if (!pv) {
		strbuf_addf(err, "llm: unknown provider '%s' (expected openai or anthropic)",
			    cfg->provider ? cfg->provider : "");
		return -1;
	}
	if (!cfg->model || !*cfg->model) {
		strbuf_addf(err, "llm: %s: no model given", pv->name);
		return -1;
	}
	if (!req->user) {
		strbuf_addf(err, "llm: %s: empty request", pv->name);
		return -1;
	}
	if (llm_read_key(cfg, pv->name, &key, err) < 0)
		return -1;

	long est_in = llm_estimate_tokens(req);
	long max_out = llm_max_out(cfg);
	if (budget) {
		if (llm_budget_check(budget, llm_call_need(cfg, est_in), err) < 0)
			goto out;
		/* the reply may not outrun the tokens left */
		if (budget->max_tokens >= 0 && max_out > budget->max_tokens - budget->tokens - est_in)
			max_out = budget->max_tokens - budget->tokens - est_in;
	}

	llm_endpoint(cfg, &url);
	char *host = NULL;
	if (key && !cfg->insecure_http && http_cleartext_remote(url.buf, &host)) {
		strbuf_addf(err, "llm: %s: the key in %s would go to %s in the clear (plain http, not a "
			    "loopback address); use https, or set insecure_http = true in llm(...)", pv->name,
			    cfg->key_env, host ? host : "a URL that does not parse");
		free(host);
		goto out;
	}
	free(host);

	if (pv->build(cfg, req, max_out, &body, err) < 0)
		goto out;
	/* the key line comes last so no later growth leaves a copy of it in freed memory */
	strbuf_addstr(&lines, "User-Agent: koptmake/" PACKAGE_VERSION "\n");
	pv->headers(key, &lines);
	headers = llm_split_lines(&lines);

	if (budget)
		budget->calls++;
	rc = llm_attempts(pv, req, budget, url.buf, headers, key, &body, est_in, out, err);
	if (rc == 0) {
		if (out->input_tokens < 0 || out->output_tokens < 0) {
			out->usage_estimated = true;
			if (out->input_tokens < 0)
				out->input_tokens = est_in;
			if (out->output_tokens < 0)
				out->output_tokens = (long)(out->text.len / 4) + 1;
		}
		if (budget)
			budget->tokens += out->input_tokens + out->output_tokens;
		size_t i = 0;
		while (i < out->text.len && isspace((unsigned char)out->text.buf[i]))
			i++;
		if (i == out->text.len) {
			strbuf_addf(err, "llm: %s reply has an empty answer", pv->name);
			if (out->stop_reason)
				strbuf_addf(err, " (stopped: %s)", out->stop_reason);
			rc = -1;
		}
	}
out:
	free(headers);
	if (lines.buf) {
		volatile char *v = lines.buf;
		for (size_t i = 0; i < lines.cap; i++)
			v[i] = 0;
	}
	strbuf_release(&lines);
	strbuf_release(&body);
	strbuf_release(&url);
	llm_scrub(err, key);
	llm_scrub(&out->text, key);
	llm_scrub_str(&out->stop_reason, key);
	llm_wipe_free(key);
	return rc;
}

/* ---- several samples at once ---- */

struct llm_sample {
	const struct kopt_llm *cfg;
	const struct llm_request *req;
	struct llm_budget budget; /* a copy: its share of the tokens left */
	struct llm_reply *out;
	struct strbuf *err;
	int rc;
};

static void *llm_sample_run(void *arg)
{
	struct llm_sample *s = arg;
	s->rc = llm_complete(s->cfg, s->req, &s->budget, s->out, s->err);
	return NULL;
}

/*
 * How many of n calls the budget lets start: each needs a call and, for
 * the tokens, what llm_complete asks before it sends (the prompt and the
 * first 1024 of the reply), and each may use its share of the tokens left.
 */
static int llm_startable(const struct kopt_llm *cfg, const struct llm_request *req, int n,
			 const struct llm_budget *b)
{
	long need = llm_call_need(cfg, llm_estimate_tokens(req));
	int k = n;
	if (b->max_calls >= 0 && k > b->max_calls - b->calls)
		k = b->max_calls - b->calls;
	while (k > 0 && b->max_tokens >= 0 && (b->max_tokens - b->tokens) / k < need)
		k--;
	return k > 0 ? k : 0;
}

int llm_complete_many(const struct kopt_llm *cfg, const struct llm_request *req, int n,
		      struct llm_budget *budget, struct llm_reply *out, struct strbuf *err, int *rc)
{
	int k = budget ? llm_startable(cfg, req, n, budget) : n;
	if (budget && k <= 0) {
		if (llm_budget_check(budget, llm_call_need(cfg, llm_estimate_tokens(req)), &err[0]) == 0)
			strbuf_addstr(&err[0], "llm budget: too little left for a sample");
		rc[0] = -1;
		return -1;
	}
	if (budget && llm_budget_check(budget, 0, &err[0]) < 0) {
		rc[0] = -1;
		return -1;
	}
	if (k == 1) {
		rc[0] = llm_complete(cfg, req, budget, &out[0], &err[0]);
		return 1;
	}
	struct llm_sample *s = xcalloc((size_t)k, sizeof *s);
	pthread_t *th = xcalloc((size_t)k, sizeof *th);
	bool *started = xcalloc((size_t)k, sizeof *started);
	http_global_init(); /* before the threads: libcurl's global set-up is not thread-safe */
	for (int i = 0; i < k; i++) {
		s[i].cfg = cfg;
		s[i].req = req;
		s[i].out = &out[i];
		s[i].err = &err[i];
		s[i].rc = -1;
		if (budget) {
			s[i].budget = *budget;
			s[i].budget.max_calls = -1; /* counted above */
			if (budget->max_tokens >= 0)
				s[i].budget.max_tokens = budget->tokens + (budget->max_tokens - budget->tokens) / k;
		} else {
			llm_budget_init(&s[i].budget, NULL);
		}
		started[i] = pthread_create(&th[i], NULL, llm_sample_run, &s[i]) == 0;
		if (!started[i])
			llm_sample_run(&s[i]); /* no thread to be had: in turn */
	}
	int calls0 = budget ? budget->calls : 0;
	long tokens0 = budget ? budget->tokens : 0;
	for (int i = 0; i < k; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		rc[i] = s[i].rc;
		if (budget) {
			budget->calls += s[i].budget.calls - calls0;
			budget->tokens += s[i].budget.tokens - tokens0;
		}
	}
	free(started);
	free(th);
	free(s);
	return k;
}

