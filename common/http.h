/*
 * common/http.h: a small libcurl wrapper, for the LLM clients (agents/llm)
 * and the remote cache (engine/remote.c).
 *
 * One call, http_post(), sends one JSON body with extra header lines under a
 * connect timeout and a total timeout, and hands back the status, the body,
 * the raw header lines and the Retry-After of the response. It never follows
 * redirects, speaks only http and https, never goes through a proxy to a
 * loopback address, and does not retry: retry policy belongs to the caller
 * (agents/llm/llm.c).
 *
 * Nothing here logs or prints. The header lines passed in may hold secrets
 * (an API key): http_post() does not copy them into anything it returns.
 */
#ifndef KOPT_HTTP_H
#define KOPT_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "util.h"

struct http_request {
	const char *url;            /* full URL, http:// or https:// */
	const char *const *headers; /* "Name: value" lines, NULL-terminated; may be NULL */
	const char *body;           /* request body (sent as is); may be NULL when body_len is 0 */
	size_t body_len;
	double connect_timeout_s;   /* to connect; <= 0 means 10 */
	double timeout_s;           /* whole exchange, connect included; <= 0 means 120 */
	size_t max_body;            /* largest response body accepted; 0 means 16 MiB */
};

/* Why no complete response came back. */
enum http_fail {
	HTTP_FAIL_NONE,      /* a complete response arrived (any status) */
	HTTP_FAIL_TIMEOUT,   /* connect or total timeout */
	HTTP_FAIL_CONNECT,   /* name not resolved, or connection refused */
	HTTP_FAIL_EMPTY,     /* the server closed the connection without a reply */
	HTTP_FAIL_TRUNCATED, /* the connection closed before the whole body came */
	HTTP_FAIL_NETWORK,   /* send or receive error on an open connection */
	HTTP_FAIL_TOO_LARGE, /* the body passed max_body */
	HTTP_FAIL_OTHER      /* bad URL, TLS failure, ...: not worth retrying */
};

struct http_response {
	long status;           /* HTTP status of the final response; 0 when none came */
	struct strbuf body;    /* the body as received (partial on failure) */
	struct strbuf headers; /* header lines of the final response, "Name: value\r\n" each */
	double retry_after_s;  /* Retry-After in seconds from now; -1 when absent or unreadable */
	enum http_fail fail;   /* HTTP_FAIL_NONE unless http_post() returned -1 */
	double elapsed_s;      /* wall time of the exchange */
};

void http_response_init(struct http_response *r);
void http_response_release(struct http_response *r); /* frees, back to the init state */

/*
 * libcurl's global set-up. http_post() calls http_global_init() on first use;
 * a threaded program calls it once from main() before starting threads.
 * Both return 0, or -1 when libcurl cannot start (init only).
 */
int http_global_init(void);
void http_global_cleanup(void);

/*
 * POSTs req->body to req->url. Returns 0 when a complete response arrived,
 * whatever its status (the caller judges 4xx and 5xx), with resp filled.
 * Returns -1 when none did, with resp->fail set and one line appended to err
 * naming the URL and the cause (e.g. "POST http://h/x: timed out after 2.0 s").
 * resp is reset first; the caller owns it and releases it.
 */
int http_post(const struct http_request *req, struct http_response *resp, struct strbuf *err);

/*
 * Whether url sends what it carries in the clear across the network:
 * plain http:// to a host that is not a loopback address (localhost,
 * 127.0.0.0/8, ::1). A URL that does not parse counts as such. *host (may
 * be NULL) gets the host as libcurl reads it, newly allocated, or NULL.
 */
bool http_cleartext_remote(const char *url, char **host);

/*
 * The value of the named header of the response (first occurrence, name
 * matched without regard to case, surrounding blanks trimmed), newly
 * allocated; NULL when absent.
 */
char *http_response_header(const struct http_response *resp, const char *name);

/*
 * Reads a Retry-After value: delay-seconds ("120") or an HTTP date, the
 * latter against now. Returns seconds (0 for a date in the past), or -1 when
 * the value is neither.
 */
double http_parse_retry_after(const char *value, time_t now);

#endif
