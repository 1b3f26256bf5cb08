/* common/http.c: see http.h */
#define _POSIX_C_SOURCE 200809L
#include "http.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#define HTTP_MAX_BODY_DEFAULT ((size_t)16 << 20)

static bool http_started;

int http_global_init(void)
{
	if (http_started)
		return 0;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -1;
	http_started = true;
	return 0;
}

void http_global_cleanup(void)
{
	if (!http_started)
		return;
	curl_global_cleanup();
	http_started = false;
}

void http_response_init(struct http_response *r)
{
	r->status = 0;
	strbuf_init(&r->body);
	strbuf_init(&r->headers);
	r->retry_after_s = -1;
	r->fail = HTTP_FAIL_NONE;
	r->elapsed_s = 0;
}

void http_response_release(struct http_response *r)
{
	strbuf_release(&r->body);
	strbuf_release(&r->headers);
	http_response_init(r);
}

/* What the callbacks share during one transfer. */
struct http_xfer {
	struct http_response *resp;
	size_t max_body;
	bool too_large; /* the write callback refused more body */
};

static size_t http_write_cb(char *data, size_t size, size_t n, void *ctx)
{
	struct http_xfer *x = ctx;
	size_t len = size * n;
	if (x->resp->body.len + len > x->max_body) {
		x->too_large = true;
		return 0; /* libcurl stops with CURLE_WRITE_ERROR */
	}
	strbuf_add(&x->resp->body, data, len);
	return len;
}

static size_t http_header_cb(char *data, size_t size, size_t n, void *ctx)
{
	struct http_xfer *x = ctx;
	size_t len = size * n;
	/* a status line starts a new response (after 100 Continue, say): keep only the last */
	if (len >= 5 && memcmp(data, "HTTP/", 5) == 0)
		strbuf_reset(&x->resp->headers);
	else if (len > 2 || (len > 0 && data[0] != '\r' && data[0] != '\n'))
		strbuf_add(&x->resp->headers, data, len);
	return len;
}

static bool http_loopback(const char *host)
{
	char buf[64];
	size_t n = strlen(host);
	if (strcasecmp(host, "localhost") == 0)
		return true;
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof buf) {
		memcpy(buf, host + 1, n - 2);
		buf[n - 2] = '\0';
		struct in6_addr a6;
		return inet_pton(AF_INET6, buf, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
	}
	struct in_addr a4;
	return inet_pton(AF_INET, host, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
}

bool http_cleartext_remote(const char *url, char **host)
{
	bool r = true;
	if (host)
		*host = NULL;
	CURLU *u = curl_url();
	char *scheme = NULL, *h = NULL;
	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK) {
		r = strcasecmp(scheme, "https") != 0 && !http_loopback(h);
		if (host)
			*host = xstrdup(h);
	}
	curl_free(scheme);
	curl_free(h);
	curl_url_cleanup(u);
	return r;
}

char *http_response_header(const struct http_response *resp, const char *name)
{
	size_t nlen = strlen(name);
	const char *p = resp->headers.buf;
	if (!p)
		return NULL;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t llen = eol ? (size_t)(eol - p) : strlen(p);
		if (llen > nlen && p[nlen] == ':' && strncasecmp(p, name, nlen) == 0) {
			const char *v = p + nlen + 1, *e = p + llen;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && isspace((unsigned char)e[-1]))
				e--;
			return xstrndup(v, (size_t)(e - v));
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return NULL;
}

double http_parse_retry_after(const char *value, time_t now)
{
	const char *p = value;
	while (*p == ' ' || *p == '\t')
		p++;
	if (isdigit((unsigned char)*p)) {
		char *end;
		errno = 0;
		double s = strtod(p, &end);
		while (*end == ' ' || *end == '\t')
			end++;
		if (errno == 0 && *end == '\0' && s >= 0)
			return s;
		/* fall through: maybe a date such as "01 Jan ..." is not digit-led, but try */
	}
	time_t t = curl_getdate(p, NULL);
	if (t == (time_t)-1)
		return -1;
	return t > now ? (double)(t - now) : 0.0;
}

static long http_ms(double s, double dflt)
{
	if (s <= 0)
		s = dflt;
	double ms = s * 1000.0;
	if (ms < 1)
		ms = 1;
	if (ms > (double)LONG_MAX / 2)
		ms = (double)LONG_MAX / 2;
	return (long)ms;
}

static enum http_fail http_classify(CURLcode rc, const struct http_xfer *x)
{
	switch (rc) {
	case CURLE_OK:
		return HTTP_FAIL_NONE;
	case CURLE_OPERATION_TIMEDOUT:
		return HTTP_FAIL_TIMEOUT;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
		return HTTP_FAIL_CONNECT;
	case CURLE_GOT_NOTHING:
		return HTTP_FAIL_EMPTY;
	case CURLE_PARTIAL_FILE:
		return HTTP_FAIL_TRUNCATED;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
		return HTTP_FAIL_NETWORK;
	case CURLE_WRITE_ERROR:
		return x->too_large ? HTTP_FAIL_TOO_LARGE : HTTP_FAIL_OTHER;
	default:
		return HTTP_FAIL_OTHER;
	}
}

static void http_describe(struct strbuf *err, const struct http_request *req, CURLcode rc,
			  enum http_fail fail, const struct http_response *resp,
			  const struct http_xfer *x, const char *curlmsg, double timeout_s)
{
	strbuf_addf(err, "POST %s: ", req->url);
	switch (fail) {
	case HTTP_FAIL_TIMEOUT:
		strbuf_addf(err, "timed out after %.3g s", timeout_s);
		break;
	case HTTP_FAIL_CONNECT:
		strbuf_addf(err, "cannot connect (%s)", curlmsg[0] ? curlmsg : curl_easy_strerror(rc));
		break;
	case HTTP_FAIL_EMPTY:
		strbuf_addstr(err, "the server closed the connection without a reply");
		break;
	case HTTP_FAIL_TRUNCATED:
		strbuf_addf(err, "truncated response: the connection closed after %zu body bytes (%s)",
			    resp->body.len, curlmsg[0] ? curlmsg : curl_easy_strerror(rc));
		break;
	case HTTP_FAIL_TOO_LARGE:
		strbuf_addf(err, "response body larger than %zu bytes", x->max_body);
		break;
	default:
		strbuf_addstr(err, curlmsg[0] ? curlmsg : curl_easy_strerror(rc));
		break;
	}
}

int http_post(const struct http_request *req, struct http_response *resp, struct strbuf *err)
{
	char curlmsg[CURL_ERROR_SIZE];
	struct curl_slist *hdrs = NULL, *tmp;
	struct http_xfer x = { resp, req->max_body ? req->max_body : HTTP_MAX_BODY_DEFAULT, false };
	double timeout_s = req->timeout_s > 0 ? req->timeout_s : 120;
	double t0 = kopt_now();
	CURLcode rc;

	http_response_release(resp);
	if (http_global_init() < 0) {
		resp->fail = HTTP_FAIL_OTHER;
		strbuf_addf(err, "POST %s: libcurl failed to initialise", req->url);
		return -1;
	}
	CURL *c = curl_easy_init();
	if (!c) {
		resp->fail = HTTP_FAIL_OTHER;
		strbuf_addf(err, "POST %s: libcurl failed to initialise", req->url);
		return -1;
	}
	for (const char *const *h = req->headers; h && *h; h++) {
		if (!(tmp = curl_slist_append(hdrs, *h)))
			kopt_die("out of memory building HTTP headers");
		hdrs = tmp;
	}
	/* no "Expect: 100-continue" round trip for larger bodies */
	if (!(tmp = curl_slist_append(hdrs, "Expect:")))
		kopt_die("out of memory building HTTP headers");
	hdrs = tmp;

	curlmsg[0] = '\0';
	curl_easy_setopt(c, CURLOPT_URL, req->url);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body ? req->body : "");
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, http_write_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, http_header_cb);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &x);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curlmsg);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, http_ms(req->connect_timeout_s, 10));
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, http_ms(timeout_s, 120));
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L); /* safe in threads; no SIGALRM */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	/* what goes to a local server (a key) never goes through a proxy */
	if (!http_cleartext_remote(req->url, NULL) && strncasecmp(req->url, "http:", 5) == 0)
		curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ""); /* whatever libcurl can decode */
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif

	rc = curl_easy_perform(c);
	resp->elapsed_s = kopt_now() - t0;
	resp->fail = http_classify(rc, &x);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
	if (resp->fail != HTTP_FAIL_NONE) {
		http_describe(err, req, rc, resp->fail, resp, &x, curlmsg, timeout_s);
	} else {
		char *ra = http_response_header(resp, "Retry-After");
		if (ra) {
			resp->retry_after_s = http_parse_retry_after(ra, time(NULL));
			free(ra);
		}
	}
	curl_easy_cleanup(c);
	/* the header lines may hold an API key: wipe libcurl's copies before freeing */
	for (tmp = hdrs; tmp; tmp = tmp->next) {
		volatile char *v = tmp->data;
		while (*v)
			*v++ = 0;
	}
	curl_slist_free_all(hdrs);
	return resp->fail == HTTP_FAIL_NONE ? 0 : -1;
}
