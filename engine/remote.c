/*
 * engine/remote.c: see remote.h.
 *
 * One libcurl easy handle serves every request (curl_easy_reset between
 * them keeps the connection open). Objects the remote is known to hold
 * (sent, or fetched and checked, in this process) are not sent again.
 *
 * Everything on the server is sealed (engine/seal.h): ac/KEY holds the
 * record's line, then a line with its seal; cas/HEX the object's bytes,
 * then the 64 hex digits of their seal. A record or object whose seal
 * does not hold under this machine's key is refused before anything in it
 * is used or written here: a checksum or a hash that anyone can recompute
 * finds corruption, a seal finds forgery.
 */
#define _GNU_SOURCE
#include <config.h>

#include "remote.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "../common/http.h"
#include "cache.h"
#include "seal.h"

#define CONNECT_MS 3000L
#define TOTAL_MS 60000L
#define LOW_SPEED 1024L /* bytes per second ... */
#define LOW_SPEED_S 5L  /* ... below which for this long is too slow */
#define MAX_BODY ((size_t)1 << 30)

struct kopt_remote {
	char *base;            /* the URL without its #flag, ending in '/' */
	char *shown;           /* the URL as messages show it (no #flag) */
	bool readonly;         /* #readonly: never PUT */
	bool off;              /* a request failed: no more */
	bool filling;          /* remote_fetch is putting a record locally */
	char *auth;            /* $KOPT_REMOTE_CACHE_AUTH, or NULL (netrc) */
	CURL *curl;
	char errbuf[CURL_ERROR_SIZE];
	kopt_hash *queue;      /* records put locally, to send */
	size_t nqueue, queuecap;
	kopt_hash *known;      /* open addressing: objects the remote holds; zero = empty */
	size_t nknown, knowncap;
	/* counts for remote_summary */
	size_t found, missing, corrupt, sent_records, sent_objects;
	size_t bytes_in, bytes_out;
};

kopt_remote *remote_new(const char *url, char **why)
{
	const char *bad = kopt_url_problem(url);
	if (bad) {
		*why = xstrdup(bad);
		return NULL;
	}
	if (http_global_init() < 0) {
		*why = xstrdup("libcurl failed to initialise");
		return NULL;
	}
	kopt_remote *r = xcalloc(1, sizeof *r);
	const char *frag = strchr(url, '#');
	size_t n = frag ? (size_t)(frag - url) : strlen(url);
	r->readonly = frag != NULL; /* kopt_url_problem allows #readonly only */
	r->shown = xstrndup(url, n);
	r->base = n && url[n - 1] == '/' ? xstrdup(r->shown) : xasprintf("%s/", r->shown);
	const char *a = getenv("KOPT_REMOTE_CACHE_AUTH");
	r->auth = a && *a ? xstrdup(a) : NULL;
	r->curl = curl_easy_init();
	if (!r->curl) {
		remote_free(r);
		*why = xstrdup("libcurl failed to initialise");
		return NULL;
	}
	if (seal_key_load() < 0) { /* nothing could be sealed or checked */
		kopt_warn("remote cache %s: no seal key; this build goes on without it", r->shown);
		r->off = true;
	}
	return r;
}

void remote_free(kopt_remote *r)
{
	if (!r)
		return;
	if (r->curl)
		curl_easy_cleanup(r->curl);
	if (r->auth) {
		memset(r->auth, 0, strlen(r->auth));
		free(r->auth);
	}
	free(r->base);
	free(r->shown);
	free(r->queue);
	free(r->known);
	free(r);
}

/* msg with every occurrence of the secret (or its password part) replaced */
static char *scrub(const kopt_remote *r, const char *msg)
{
	char *out = xstrdup(msg);
	if (!r->auth)
		return out;
	const char *secrets[2] = { r->auth, NULL };
	const char *colon = strchr(r->auth, ':');
	if (strncmp(r->auth, "Bearer ", 7) == 0)
		secrets[1] = r->auth + 7;
	else if (colon && colon[1])
		secrets[1] = colon + 1;
	for (int i = 0; i < 2; i++) {
		if (!secrets[i] || !*secrets[i])
			continue;
		char *p;
		size_t l = strlen(secrets[i]);
		while ((p = strstr(out, secrets[i]))) {
			char *next = xasprintf("%.*s***%s", (int)(p - out), out, p + l);
			free(out);
			out = next;
		}
	}
	return out;
}

/* the first failure: one warning, and the remote is off */
static void fail(kopt_remote *r, const char *method, const char *kind, const char *hex, const char *what)
{
	if (r->off)
		return;
	r->off = true;
	char *msg = xasprintf("remote cache %s: %s %s/%s: %s; this build goes on without it", r->shown, method, kind,
			      hex, what);
	char *clean = scrub(r, msg);
	kopt_warn("%s", clean);
	free(clean);
	free(msg);
}

#define MAX_CORRUPT_WARN 5 /* a server that answers garbage to everything says so once */

static void corrupt(kopt_remote *r, const char *kind, const char *hex, const char *what)
{
	if (++r->corrupt <= MAX_CORRUPT_WARN)
		kopt_warn("remote cache %s: %s/%s %s; not used, the step runs here", r->shown, kind, hex, what);
	else if (r->corrupt == MAX_CORRUPT_WARN + 1)
		kopt_warn("remote cache %s: more corrupt entries, not reported one by one (-v counts them)", r->shown);
}

static size_t write_cb(char *data, size_t size, size_t n, void *ctx)
{
	struct strbuf *sb = ctx;
	size_t len = size * n;
	if (sb->len + len > MAX_BODY)
		return 0;
	strbuf_add(sb, data, len);
	return len;
}

struct upload {
	const char *data;
	size_t len, off;
};

static size_t read_cb(char *buf, size_t size, size_t n, void *ctx)
{
	struct upload *u = ctx;
	size_t want = size * n, left = u->len - u->off;
	if (want > left)
		want = left;
	memcpy(buf, u->data + u->off, want);
	u->off += want;
	return want;
}

/* sets up r->curl for one request to kind/hex; returns the header list */
static struct curl_slist *prepare(kopt_remote *r, const char *kind, const char *hex)
{
	CURL *c = r->curl;
	curl_easy_reset(c); /* keeps the open connection */
	char *url = xasprintf("%s%s/%s", r->base, kind, hex);
	curl_easy_setopt(c, CURLOPT_URL, url);
	free(url); /* libcurl copies it */
	r->errbuf[0] = '\0';
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, r->errbuf);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_MS);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, TOTAL_MS);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, LOW_SPEED);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, LOW_SPEED_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	struct curl_slist *h = curl_slist_append(NULL, "Expect:");
	if (!h)
		kopt_die("out of memory");
	if (r->auth && strncmp(r->auth, "Bearer ", 7) == 0) {
		char *line = xasprintf("Authorization: %s", r->auth);
		struct curl_slist *t = curl_slist_append(h, line);
		memset(line, 0, strlen(line));
		free(line);
		if (!t)
			kopt_die("out of memory");
		h = t;
	} else if (r->auth) {
		curl_easy_setopt(c, CURLOPT_USERPWD, r->auth);
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
	} else {
		curl_easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	return h;
}

/* what went wrong with a transfer, in words */
static char *transfer_error(kopt_remote *r, CURLcode rc)
{
	const char *m = r->errbuf[0] ? r->errbuf : curl_easy_strerror(rc);
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return xasprintf("too slow (%s)", m);
	if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST)
		return xasprintf("cannot connect (%s)", m);
	return xstrdup(m);
}

int remote_get(kopt_remote *r, const char *kind, const char *hex, struct strbuf *out)
{
	if (r->off)
		return -1;
	strbuf_reset(out);
	struct curl_slist *h = prepare(r, kind, hex);
	curl_easy_setopt(r->curl, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, out);
	CURLcode rc = curl_easy_perform(r->curl);
	long status = 0;
	curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	if (rc != CURLE_OK) {
		char *what = transfer_error(r, rc);
		fail(r, "GET", kind, hex, what);
		free(what);
		return -1;
	}
	if (status == 404)
		return 0;
	if (status != 200) {
		char what[64];
		snprintf(what, sizeof what, "the server answered HTTP %ld", status);
		fail(r, "GET", kind, hex, what);
		return -1;
	}
	r->bytes_in += out->len;
	return 1;
}

int remote_put(kopt_remote *r, const char *kind, const char *hex, const void *data, size_t n)
{
	if (r->off)
		return -1;
	if (r->readonly)
		return 0;
	struct upload u = { data, n, 0 };
	struct strbuf body = STRBUF_INIT;
	strbuf_init(&body);
	struct curl_slist *h = prepare(r, kind, hex);
	curl_easy_setopt(r->curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(r->curl, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(r->curl, CURLOPT_READDATA, &u);
	curl_easy_setopt(r->curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)n);
	curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, &body);
	CURLcode rc = curl_easy_perform(r->curl);
	long status = 0;
	curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	strbuf_release(&body);
	if (rc != CURLE_OK) {
		char *what = transfer_error(r, rc);
		fail(r, "PUT", kind, hex, what);
		free(what);
		return -1;
	}
	if (status != 200 && status != 201 && status != 204) {
		char what[64];
		snprintf(what, sizeof what, "the server answered HTTP %ld", status);
		fail(r, "PUT", kind, hex, what);
		return -1;
	}
	r->bytes_out += n;
	return 0;
}

/* ---- objects the remote holds ---- */

static size_t known_slot(kopt_hash h, size_t cap)
{
	return (size_t)(h.lo ^ (h.hi >> 11)) & (cap - 1);
}

static bool known_has(const kopt_remote *r, kopt_hash h)
{
	if (!r->knowncap)
		return false;
	for (size_t s = known_slot(h, r->knowncap); !hash_is_zero(r->known[s]); s = (s + 1) & (r->knowncap - 1))
		if (hash_eq(r->known[s], h))
			return true;
	return false;
}

static void known_add(kopt_remote *r, kopt_hash h)
{
	if (hash_is_zero(h) || known_has(r, h))
		return;
	if (2 * (r->nknown + 1) > r->knowncap) {
		size_t ncap = r->knowncap ? 2 * r->knowncap : 256;
		kopt_hash *t = xcalloc(ncap, sizeof *t);
		for (size_t i = 0; i < r->knowncap; i++) {
			if (hash_is_zero(r->known[i]))
				continue;
			size_t s = known_slot(r->known[i], ncap);
			while (!hash_is_zero(t[s]))
				s = (s + 1) & (ncap - 1);
			t[s] = r->known[i];
		}
		free(r->known);
		r->known = t;
		r->knowncap = ncap;
	}
	size_t s = known_slot(h, r->knowncap);
	while (!hash_is_zero(r->known[s]))
		s = (s + 1) & (r->knowncap - 1);
	r->known[s] = h;
	r->nknown++;
}

/* the objects a manifest names (its "objects" and "outputs"); -1 when one
 * is not a hash */
static int manifest_objects(json_t *man, kopt_hash **out, size_t *n)
{
	static const char *const maps[] = { "objects", "outputs" };
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	for (int m = 0; m < 2; m++) {
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(man, maps[m]), k, v) {
			kopt_hash h;
			/* an output is {"hash", "size"} (an older one, the hash alone) */
			const char *hex = json_string_value(json_is_object(v) ? json_object_get(v, "hash") : v);
			if (!hex || strlen(hex) != 32 || hash_parse(hex, &h) < 0)
				return -1;
			*out = xgrow(*out, &cap, *n + 1, sizeof **out);
			(*out)[(*n)++] = h;
		}
	}
	return 0;
}

int remote_fetch(kopt_remote *r, kopt_cache *c, kopt_hash key)
{
	if (!r || r->off || r->filling)
		return 0;
	char hex[HASH_HEX];
	hash_hex(key, hex);
	struct strbuf body = STRBUF_INIT, obj = STRBUF_INIT;
	strbuf_init(&body);
	strbuf_init(&obj);
	int got = remote_get(r, "ac", hex, &body);
	int result = 0;
	kopt_hash *objs = NULL;
	struct strbuf **got_objs = NULL; /* the objects fetched, checked, not yet written */
	size_t nobjs = 0;
	json_t *man = NULL;
	kopt_hash k, stable;
	const char *js;
	size_t jlen;
	if (got != 1) {
		r->missing += got == 0;
		goto out;
	}
	/* LINE\nSEAL\n: the seal first, then the line's own checksum */
	const char *nl = body.len > SEAL_HEX ? memchr(body.buf, '\n', body.len) : NULL;
	size_t llen = nl ? (size_t)(nl - body.buf) : 0;
	if (!nl || body.len != llen + SEAL_HEX + 1 || body.buf[body.len - 1] != '\n') {
		corrupt(r, "ac", hex, "is corrupt (not a record and its seal)");
		goto out;
	}
	char mac[SEAL_HEX];
	memcpy(mac, nl + 1, SEAL_HEX - 1);
	mac[SEAL_HEX - 1] = '\0';
	if (!seal_check("record", "", body.buf, llen, mac)) {
		corrupt(r, "ac", hex, "is not sealed with this machine's key (forged, or sealed with another key: "
				      "KOPT_SEAL_KEY)");
		goto out;
	}
	if (cache_record_parse(body.buf, llen, &k, &stable, &js, &jlen) < 0) {
		corrupt(r, "ac", hex, "is corrupt (not a record whose checksum holds)");
		goto out;
	}
	if (!hash_eq(k, key)) {
		corrupt(r, "ac", hex, "is the record of another key");
		goto out;
	}
	man = json_loadb(js, jlen, 0, NULL);
	if (!json_is_object(man) || manifest_objects(man, &objs, &nobjs) < 0) {
		corrupt(r, "ac", hex, "holds a manifest that does not read");
		goto out;
	}
	/* every object checked before any is written here */
	got_objs = xcalloc(nobjs ? nobjs : 1, sizeof *got_objs);
	for (size_t i = 0; i < nobjs; i++) {
		char ohex[HASH_HEX];
		hash_hex(objs[i], ohex);
		if (cache_object_get(c, objs[i], &obj) == 0)
			continue; /* here already */
		int og = remote_get(r, "cas", ohex, &obj);
		if (og == 0) {
			r->missing++;
			goto out; /* a record without its objects is no hit */
		}
		if (og < 0)
			goto out;
		size_t n = obj.len >= SEAL_HEX - 1 ? obj.len - (SEAL_HEX - 1) : 0;
		char omac[SEAL_HEX] = "";
		if (obj.len >= SEAL_HEX - 1)
			memcpy(omac, obj.buf + n, SEAL_HEX - 1);
		if (obj.len < SEAL_HEX - 1 || !seal_check("object", ohex, obj.buf, n, omac)) {
			corrupt(r, "cas", ohex, "is not sealed with this machine's key (forged, corrupt, or sealed "
						"with another key: KOPT_SEAL_KEY)");
			goto out;
		}
		if (!hash_eq(hash_bytes(obj.buf, n), objs[i])) {
			corrupt(r, "cas", ohex, "is corrupt (its bytes do not hash to its name)");
			goto out;
		}
		got_objs[i] = xmalloc(sizeof **got_objs);
		strbuf_init(got_objs[i]);
		strbuf_add(got_objs[i], obj.buf, n);
	}
	for (size_t i = 0; i < nobjs; i++) {
		kopt_hash got_h;
		if (got_objs[i] && cache_object_put(c, got_objs[i]->buf, got_objs[i]->len, &got_h) < 0)
			goto out;
	}
	char *manifest = xstrndup(js, jlen);
	r->filling = true;
	int put = cache_put(c, key, stable, manifest);
	r->filling = false;
	free(manifest);
	if (put == 0) {
		for (size_t i = 0; i < nobjs; i++)
			known_add(r, objs[i]);
		r->found++;
		result = 1;
	}
out:
	for (size_t i = 0; got_objs && i < nobjs; i++)
		if (got_objs[i]) {
			strbuf_release(got_objs[i]);
			free(got_objs[i]);
		}
	free(got_objs);
	json_decref(man);
	free(objs);
	strbuf_release(&body);
	strbuf_release(&obj);
	return result;
}

void remote_queue(kopt_remote *r, kopt_hash key)
{
	if (!r || r->off || r->readonly || r->filling)
		return;
	r->queue = xgrow(r->queue, &r->queuecap, r->nqueue + 1, sizeof *r->queue);
	r->queue[r->nqueue++] = key;
}

/* sends one record: its objects the remote may lack, then the record */
static void send_record(kopt_remote *r, kopt_cache *c, kopt_hash key)
{
	struct cache_entry *e = cache_get(c, key);
	if (!e)
		return;
	json_t *man = json_loadb(e->json, e->len, 0, NULL);
	kopt_hash *objs = NULL;
	size_t nobjs = 0;
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb);
	if (!json_is_object(man) || manifest_objects(man, &objs, &nobjs) < 0)
		goto out;
	for (size_t i = 0; i < nobjs && !r->off; i++) {
		if (known_has(r, objs[i]))
			continue;
		if (cache_object_get(c, objs[i], &sb) < 0)
			goto out; /* lost here: the record would name a missing object */
		char ohex[HASH_HEX], mac[SEAL_HEX];
		hash_hex(objs[i], ohex);
		if (seal_make("object", ohex, sb.buf ? sb.buf : "", sb.len, mac) < 0)
			goto out;
		strbuf_add(&sb, mac, SEAL_HEX - 1);
		if (remote_put(r, "cas", ohex, sb.buf, sb.len) < 0)
			goto out;
		known_add(r, objs[i]);
		r->sent_objects++;
	}
	strbuf_reset(&sb);
	cache_record_format(&sb, key, e->stable, e->json, e->len);
	char mac[SEAL_HEX];
	if (seal_make("record", "", sb.buf, sb.len - 1, mac) < 0)
		goto out;
	strbuf_addf(&sb, "%s\n", mac);
	char hex[HASH_HEX];
	hash_hex(key, hex);
	if (remote_put(r, "ac", hex, sb.buf, sb.len) == 0)
		r->sent_records++;
out:
	strbuf_release(&sb);
	free(objs);
	json_decref(man);
}

void remote_flush(kopt_remote *r, kopt_cache *c)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nqueue && !r->off; i++)
		send_record(r, c, r->queue[i]);
	r->nqueue = 0;
}

void remote_summary(const kopt_remote *r, FILE *out)
{
	fprintf(out, "%s: remote cache %s%s: %zu found, %zu missing, %zu corrupt; %zu records and %zu objects sent; "
		"%zu bytes in, %zu out%s\n",
		kopt_progname, r->shown, r->readonly ? " (read-only)" : "", r->found, r->missing, r->corrupt,
		r->sent_records, r->sent_objects, r->bytes_in, r->bytes_out, r->off ? "; off after a failure" : "");
}
