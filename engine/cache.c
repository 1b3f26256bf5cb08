/*
 * engine/cache.c: the cache folder (.kopt/ beside the spec).
 *
 * Layout:
 *
 *   .kopt/lock          lock file: flock()ed by the koptmake process that has
 *                       the cache open; holds that process's pid as text.
 *   .kopt/actions       the action map, an append-only log (below).
 *   .kopt/objects/ab/cdef... content-addressed objects: the file's bytes
 *                       hash (XXH3-128, 32 hex digits) to its name, first two
 *                       digits as a folder. Written to objects/tmp.PID.N,
 *                       fsync()ed, renamed into place. Every read rehashes the
 *                       bytes; an object that does not match its name is
 *                       reported, removed and treated as missing.
 *   .kopt/env           remembered worker environments (below).
 *   .kopt/log           the build log (engine/blog.c).
 *
 * Every file here is opened from the folder's descriptor without following
 * a symbolic link below it (common/nofollow.h): a link at the lock, the
 * action map, objects/ or env is an error, and what it points at is left
 * as it is.
 *
 * The action map. A first line `koptmake actions 1`, then one record a line:
 *
 *   KEY STABLE MANIFEST SUM\n
 *
 * KEY: the step's key, 32 hex digits. STABLE: XXH3-128 of the canonical JSON
 * of the result's stable part. MANIFEST: the result manifest, compact JSON on
 * one line: {"kind","path","stable":{...},"meas":{...},"objects":{NAME:HEX},
 * "outputs":{RELPATH:{"hash":HEX,"size":N}}} (objects and outputs name objects
 * in objects/; an output recorded before sizes were kept is RELPATH:HEX).
 * RELPATH is "<the step's folder>/<name>" under kopt-out/, and a record whose
 * RELPATH is anything else is corrupt (rules/common.c checks it on restore).
 * SUM: XXH3-64 of every byte of the line before the space that precedes it,
 * 16 hex digits. Records are appended with one write() each (a killed
 * process loses nothing written) and made durable with fdatasync() at most
 * every 100 ms and at close (group commit: a power loss may lose the last
 * records, whose steps then run again); objects a record names are durable
 * before the record is written. A later record for the same key
 * replaces an earlier one. Loading: a last line without its newline is a
 * torn write: it is trimmed with a warning; a record whose SUM does not match
 * is reported and ignored (the step is treated as never run). A header of
 * another version starts an empty map. Compaction (at close, when at least
 * half of the records are dead or some were corrupt, and by `-t gc`) writes the live records to
 * actions.tmp, fsync()s it and renames it over the map.
 *
 * The env file: `SUM JSON\n`, JSON an object device name -> the `env` object
 * of that device's last worker hello; SUM the XXH3-64 of JSON. Written to a
 * temporary file, fsync()ed, renamed. A bad file is reported and ignored.
 */
#define _GNU_SOURCE
#include <config.h>

#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/nofollow.h"
#include "remote.h"

#define ACTIONS_HEADER "koptmake actions 1\n"
#define MAX_WARN 5

struct kopt_cache {
	char *dir;            /* the cache folder */
	int lockfd;           /* .kopt/lock, flock()ed */
	int actfd;            /* .kopt/actions, O_APPEND */
	char *buf;            /* the action map as read at open (mapped) */
	size_t buflen;
	bool mapped;          /* buf is an mmap() of buflen bytes */
	struct cache_entry *ents; /* entries, at most one per key */
	size_t nents, entcap;
	uint32_t *table;      /* open addressing: index + 1 into ents, 0 = empty */
	size_t tcap;          /* power of two */
	size_t nrecords;      /* records in the file (dead ones included) */
	size_t ncorrupt;
	kopt_hash *corrupt;   /* keys of corrupt records whose key parsed */
	size_t ncorruptkeys, corruptcap;
	char **graves;        /* replaced manifests, freed at close (still pointed at) */
	size_t ngraves, gravecap;
	bool dirty;           /* appended since the last sync */
	double last_sync;     /* kopt_now() of the last fdatasync */
	json_t *env;          /* the env file, loaded on first use */
	unsigned tmpseq;      /* for temporary file names */
	struct kopt_remote *remote; /* behind this cache, or NULL (remote.h) */
	bool absent;          /* no folder yet: empty, and nothing is written (cache_open_existing) */
};

static size_t slot_of(kopt_hash k, size_t cap)
{
	return (size_t)(k.lo ^ (k.hi >> 7)) & (cap - 1);
}

static void table_grow(kopt_cache *c)
{
	size_t ncap = c->tcap ? c->tcap * 2 : 1024;
	while (ncap < 2 * (c->nents + 1))
		ncap *= 2;
	uint32_t *t = xcalloc(ncap, sizeof *t);
	for (size_t i = 0; i < c->nents; i++) {
		size_t s = slot_of(c->ents[i].key, ncap);
		while (t[s])
			s = (s + 1) & (ncap - 1);
		t[s] = (uint32_t)(i + 1);
	}
	free(c->table);
	c->table = t;
	c->tcap = ncap;
}

static struct cache_entry *table_find(const kopt_cache *c, kopt_hash key)
{
	if (!c->tcap)
		return NULL;
	size_t s = slot_of(key, c->tcap);
	while (c->table[s]) {
		struct cache_entry *e = &c->ents[c->table[s] - 1];
		if (hash_eq(e->key, key))
			return e;
		s = (s + 1) & (c->tcap - 1);
	}
	return NULL;
}

/* inserts or replaces; json is borrowed unless owned */
static void table_set(kopt_cache *c, kopt_hash key, kopt_hash stable, const char *json,
		      size_t len, bool owned)
{
	struct cache_entry *e = table_find(c, key);
	if (e) {
		/* a step of this build may still point at the old manifest:
		 * keep it until close */
		if (e->owned) {
			c->graves = xgrow(c->graves, &c->gravecap, c->ngraves + 1, sizeof *c->graves);
			c->graves[c->ngraves++] = (char *)e->json;
		}
	} else {
		if ((c->nents + 1) * 2 > c->tcap)
			table_grow(c);
		c->ents = xgrow(c->ents, &c->entcap, c->nents + 1, sizeof *c->ents);
		e = &c->ents[c->nents++];
		size_t s = slot_of(key, c->tcap);
		while (c->table[s])
			s = (s + 1) & (c->tcap - 1);
		c->table[s] = (uint32_t)c->nents;
	}
	e->key = key;
	e->stable = stable;
	e->json = json;
	e->len = len;
	e->mark = false;
	e->owned = owned;
}

static int parse_sum(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	for (int i = 0; i < 16; i++) {
		int c = (unsigned char)p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

/* checks one record line (without its newline); 0 and the fields, or -1 */
static int parse_record(const char *line, size_t n, kopt_hash *key, kopt_hash *stable,
			const char **json, size_t *jlen)
{
	uint64_t sum;
	if (n < 32 + 1 + 32 + 1 + 2 + 1 + 16)
		return -1;
	if (line[32] != ' ' || line[65] != ' ' || line[n - 17] != ' ')
		return -1;
	if (hash_parse(line, key) < 0 || hash_parse(line + 33, stable) < 0)
		return -1;
	if (parse_sum(line + n - 16, &sum) < 0 || hash_sum64(line, n - 17) != sum)
		return -1;
	*json = line + 66;
	*jlen = n - 17 - 66;
	if (*jlen < 2 || (*json)[0] != '{' || (*json)[*jlen - 1] != '}')
		return -1;
	return 0;
}

static void note_corrupt(kopt_cache *c, const char *name, size_t lineno, const char *line, size_t n)
{
	kopt_hash k;
	if (c->ncorrupt++ < MAX_WARN)
		kopt_warn("%s:%zu: corrupt cache entry ignored (checksum mismatch); the step will run again",
			  name, lineno);
	else if (c->ncorrupt == MAX_WARN + 1)
		kopt_warn("%s: more corrupt entries ignored", name);
	if (n >= 32 && hash_parse(line, &k) == 0) {
		c->corrupt = xgrow(c->corrupt, &c->corruptcap, c->ncorruptkeys + 1, sizeof *c->corrupt);
		c->corrupt[c->ncorruptkeys++] = k;
	}
}

/* Parses a whole action-map image into c (c may be a scratch cache). */
static size_t parse_image(kopt_cache *c, const char *name, const char *buf, size_t len,
			  size_t *good_len, bool *bad_header)
{
	size_t good = 0;
	*bad_header = false;
	*good_len = 0;
	if (len == 0)
		return 0;
	size_t hl = strlen(ACTIONS_HEADER);
	if (len < hl || memcmp(buf, ACTIONS_HEADER, hl) != 0) {
		const char *nl = memchr(buf, '\n', len);
		if (!nl || len < hl) {
			/* a torn header: the file was being created */
			kopt_warn("%s: torn header trimmed", name);
		} else {
			kopt_warn("%s: not an action map of version 1; starting an empty one", name);
		}
		*bad_header = true;
		return 0;
	}
	size_t pos = hl, lineno = 1;
	*good_len = hl;
	while (pos < len) {
		const char *line = buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		lineno++;
		if (!nl) {
			kopt_warn("%s:%zu: torn last record trimmed (%zu bytes)", name, lineno, len - pos);
			break;
		}
		size_t n = (size_t)(nl - line);
		kopt_hash key, stable;
		const char *json;
		size_t jlen;
		c->nrecords++;
		if (parse_record(line, n, &key, &stable, &json, &jlen) == 0) {
			table_set(c, key, stable, json, jlen, false);
			good++;
		} else {
			note_corrupt(c, name, lineno, line, n);
		}
		pos += n + 1;
		*good_len = pos;
	}
	return good;
}

static void free_entries(kopt_cache *c)
{
	for (size_t i = 0; i < c->ngraves; i++)
		free(c->graves[i]);
	free(c->graves);
	for (size_t i = 0; i < c->nents; i++)
		if (c->ents[i].owned)
			free((char *)c->ents[i].json);
	free(c->ents);
	free(c->table);
	free(c->corrupt);
}

size_t cache_parse_actions(const char *name, const char *buf, size_t len, size_t *ncorrupt,
			   size_t *good_len)
{
	kopt_cache c;
	bool bad;
	memset(&c, 0, sizeof c);
	parse_image(&c, name, buf, len, good_len, &bad);
	size_t n = c.nents;
	*ncorrupt = c.ncorrupt;
	free_entries(&c);
	return n;
}

static char *path_in(const kopt_cache *c, const char *rel)
{
	return xasprintf("%s/%s", c->dir, rel);
}

static int take_lock(kopt_cache *c)
{
	char *p = path_in(c, "lock");
	c->lockfd = nofollow_open(c->dir, "lock", O_RDWR | O_CREAT, 0644);
	if (c->lockfd < 0) {
		kopt_error("cannot open '%s': %s", p, nofollow_why(errno));
		free(p);
		return -1;
	}
	const char *w = getenv("KOPT_LOCK_WAIT_MS");
	long wait_ms = w ? atol(w) : 2000;
	double deadline = kopt_now() + (double)wait_ms / 1000.0;
	bool said = false;
	while (flock(c->lockfd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			kopt_error("cannot lock '%s': %s", p, strerror(errno));
			free(p);
			return -1;
		}
		char pid[32] = "";
		ssize_t r = pread(c->lockfd, pid, sizeof pid - 1, 0);
		pid[r > 0 ? r : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		if (kopt_now() >= deadline) {
			kopt_error("the cache '%s' is in use by another koptmake (pid %s); try again when it is done",
				   c->dir, *pid ? pid : "unknown");
			free(p);
			return -1;
		}
		if (!said) {
			fprintf(stderr, "%s: waiting for the cache lock held by pid %s\n", kopt_progname,
				*pid ? pid : "unknown");
			said = true;
		}
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	char pid[32];
	int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(c->lockfd, 0) < 0 || pwrite(c->lockfd, pid, (size_t)n, 0) != n)
		kopt_warn("cannot write the pid into '%s': %s", p, strerror(errno));
	free(p);
	return 0;
}

static int read_fd(int fd, char **out, size_t *outlen)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -1;
	size_t cap = (size_t)st.st_size + 1, len = 0;
	char *b = xmalloc(cap);
	for (;;) {
		if (len == cap)
			b = xrealloc(b, cap *= 2);
		ssize_t r = pread(fd, b + len, cap - len, (off_t)len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(b);
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	*out = b;
	*outlen = len;
	return 0;
}

kopt_cache *cache_open(const char *dir)
{
	kopt_cache *c = xcalloc(1, sizeof *c);
	c->dir = xstrdup(dir);
	c->lockfd = c->actfd = -1;
	int ofd = nofollow_dir(dir, "objects", true);
	if (ofd < 0) {
		kopt_error("cannot create '%s/objects': %s", dir, nofollow_why(errno));
		cache_close(c);
		return NULL;
	}
	close(ofd);
	if (take_lock(c) < 0) {
		cache_close(c);
		return NULL;
	}
	char *ap = path_in(c, "actions");
	c->actfd = nofollow_open(c->dir, "actions", O_RDWR | O_CREAT | O_APPEND, 0644);
	struct stat st;
	if (c->actfd >= 0 && fstat(c->actfd, &st) == 0 && st.st_size > 0) {
		/* mapped, not copied: appends and renames leave the mapping valid */
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, c->actfd, 0);
		if (m != MAP_FAILED) {
			c->buf = m;
			c->buflen = (size_t)st.st_size;
			c->mapped = true;
			madvise(m, c->buflen, MADV_SEQUENTIAL);
		}
	}
	if (c->actfd < 0 || (!c->mapped && read_fd(c->actfd, &c->buf, &c->buflen) < 0)) {
		kopt_error("cannot read '%s': %s", ap, nofollow_why(errno));
		free(ap);
		cache_close(c);
		return NULL;
	}
	size_t good_len;
	bool bad_header;
	/* size the table for the records the file likely holds: no rehash while loading */
	size_t guess = c->buflen / 256 + 16;
	c->ents = xmalloc(guess * sizeof *c->ents);
	c->entcap = guess;
	c->tcap = 1024;
	while (c->tcap < 2 * guess)
		c->tcap *= 2;
	c->table = xcalloc(c->tcap, sizeof *c->table);
	parse_image(c, ap, c->buf, c->buflen, &good_len, &bad_header);
	if (bad_header || c->buflen == 0) {
		if (ftruncate(c->actfd, 0) < 0 ||
		    kopt_write_all(c->actfd, ACTIONS_HEADER, strlen(ACTIONS_HEADER)) < 0) {
			kopt_error("cannot write '%s': %s", ap, strerror(errno));
			free(ap);
			cache_close(c);
			return NULL;
		}
		c->dirty = true;
	} else if (good_len < c->buflen) {
		if (ftruncate(c->actfd, (off_t)good_len) < 0)
			kopt_warn("cannot trim '%s': %s", ap, strerror(errno));
		c->dirty = true;
	}
	free(ap);
	return c;
}

kopt_cache *cache_open_existing(const char *dir)
{
	struct stat st;
	if (stat(dir, &st) == 0 || errno != ENOENT)
		return cache_open(dir);
	kopt_cache *c = xcalloc(1, sizeof *c);
	c->dir = xstrdup(dir);
	c->lockfd = c->actfd = -1;
	c->absent = true;
	c->tcap = 16;
	c->table = xcalloc(c->tcap, sizeof *c->table);
	return c;
}

bool cache_exists(const kopt_cache *c)
{
	return !c->absent;
}

bool cache_empty(const kopt_cache *c)
{
	return c->nents == 0 && c->nrecords == 0;
}

void cache_drop_writes(kopt_cache *c)
{
	if (c->actfd >= 0)
		close(c->actfd);
	c->actfd = -1;
}

/* a write into a cache that must not come to be */
static int refuse(const kopt_cache *c, const char *what)
{
	kopt_error("internal: %s into '%s', which this run does not create", what, c->dir);
	return -1;
}

const char *cache_path(const kopt_cache *c)
{
	return c->dir;
}

struct cache_entry *cache_get(kopt_cache *c, kopt_hash key)
{
	struct cache_entry *e = table_find(c, key);
	if (!e && c->remote && remote_fetch(c->remote, c, key) == 1)
		e = table_find(c, key);
	return e;
}

void cache_set_remote(kopt_cache *c, struct kopt_remote *r)
{
	c->remote = r;
}

size_t cache_corrupt_count(const kopt_cache *c)
{
	return c->ncorrupt;
}

bool cache_was_corrupt(const kopt_cache *c, kopt_hash key)
{
	for (size_t i = 0; i < c->ncorruptkeys; i++)
		if (hash_eq(c->corrupt[i], key))
			return true;
	return false;
}

static void format_record(struct strbuf *sb, kopt_hash key, kopt_hash stable, const char *json,
			  size_t jlen)
{
	char kh[HASH_HEX], sh[HASH_HEX];
	size_t start = sb->len;
	hash_hex(key, kh);
	hash_hex(stable, sh);
	strbuf_add(sb, kh, 32);
	strbuf_addch(sb, ' ');
	strbuf_add(sb, sh, 32);
	strbuf_addch(sb, ' ');
	strbuf_add(sb, json, jlen);
	uint64_t sum = hash_sum64(sb->buf + start, sb->len - start);
	strbuf_addf(sb, " %016" PRIx64 "\n", sum);
}

void cache_record_format(struct strbuf *sb, kopt_hash key, kopt_hash stable, const char *json, size_t jlen)
{
	format_record(sb, key, stable, json, jlen);
}

int cache_record_parse(const char *line, size_t n, kopt_hash *key, kopt_hash *stable, const char **json,
		       size_t *jlen)
{
	return parse_record(line, n, key, stable, json, jlen);
}

int cache_put(kopt_cache *c, kopt_hash key, kopt_hash stable, const char *manifest)
{
	if (c->absent)
		return refuse(c, "a cache entry");
	size_t jlen = strlen(manifest);
	if (memchr(manifest, '\n', jlen)) {
		kopt_error("internal: a manifest with a newline");
		return -1;
	}
	struct strbuf sb = STRBUF_INIT;
	format_record(&sb, key, stable, manifest, jlen);
	int r = kopt_write_all(c->actfd, sb.buf, sb.len);
	strbuf_release(&sb);
	if (r < 0) {
		kopt_error("cannot append to '%s/actions': %s", c->dir, strerror(errno));
		return -1;
	}
	c->nrecords++;
	c->dirty = true;
	table_set(c, key, stable, xstrndup(manifest, jlen), jlen, true);
	if (c->remote)
		remote_queue(c->remote, key);
	return 0;
}

int cache_sync(kopt_cache *c, bool force)
{
	if (!c->dirty || c->actfd < 0)
		return 0;
	double now = kopt_now();
	if (!force && now - c->last_sync < 0.1)
		return 0;
	c->last_sync = now;
	c->dirty = false;
	if (fdatasync(c->actfd) < 0) {
		kopt_error("cannot sync '%s/actions': %s", c->dir, strerror(errno));
		return -1;
	}
	if (c->remote)
		remote_flush(c->remote, c); /* durable here: now the remote */
	return 0;
}

/* writes data to rel (inside the cache) through a temporary file in
 * objects/, renamed over rel: a link at rel is replaced, not followed */
static int write_atomic(kopt_cache *c, const char *rel, const void *data, size_t n)
{
	char *tmp = xasprintf("objects/tmp.%ld.%u", (long)getpid(), c->tmpseq++);
	int fd = nofollow_open(c->dir, tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || kopt_write_all(fd, data, n) < 0 || fsync(fd) < 0) {
		kopt_error("cannot write '%s/%s': %s", c->dir, tmp, nofollow_why(errno));
		if (fd >= 0)
			close(fd);
		nofollow_unlink(c->dir, tmp);
		free(tmp);
		return -1;
	}
	close(fd);
	if (nofollow_rename(c->dir, tmp, rel) < 0) {
		kopt_error("cannot rename '%s/%s' to '%s/%s': %s", c->dir, tmp, c->dir, rel, nofollow_why(errno));
		nofollow_unlink(c->dir, tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* objects/ab/cdef...: an object's place, below the cache folder */
static char *object_rel(kopt_hash h)
{
	char hex[HASH_HEX];
	hash_hex(h, hex);
	return xasprintf("objects/%.2s/%s", hex, hex + 2);
}

/* 1 = present and good, 0 = absent, -1 = corrupt (removed) */
static int object_read(kopt_cache *c, kopt_hash h, struct strbuf *out)
{
	char *rel = object_rel(h);
	strbuf_reset(out);
	if (nofollow_read(c->dir, rel, out) < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			kopt_warn("cache object '%s/%s' cannot be read: %s", c->dir, rel, nofollow_why(errno));
		free(rel);
		strbuf_reset(out);
		return 0;
	}
	if (!hash_eq(hash_bytes(out->buf, out->len), h)) {
		kopt_warn("cache object '%s/%s' is corrupt (its bytes do not hash to its name); removed", c->dir, rel);
		nofollow_unlink(c->dir, rel);
		free(rel);
		strbuf_reset(out);
		return -1;
	}
	free(rel);
	return 1;
}

int cache_object_put(kopt_cache *c, const void *data, size_t n, kopt_hash *out)
{
	kopt_hash h = hash_bytes(data, n);
	*out = h;
	if (c->absent)
		return refuse(c, "an object");
	char *p = object_rel(h);
	struct stat st;
	if (nofollow_stat(c->dir, p, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == n) {
		struct strbuf sb = STRBUF_INIT;
		int r = object_read(c, h, &sb);
		strbuf_release(&sb);
		if (r == 1) {
			free(p);
			return 0;
		}
	}
	char *slash = strrchr(p, '/');
	*slash = '\0';
	int dfd = nofollow_dir(c->dir, p, true);
	if (dfd < 0) {
		kopt_error("cannot create '%s/%s': %s", c->dir, p, nofollow_why(errno));
		free(p);
		return -1;
	}
	close(dfd);
	*slash = '/';
	int r = write_atomic(c, p, data, n);
	free(p);
	return r;
}

int cache_object_get(kopt_cache *c, kopt_hash h, struct strbuf *out)
{
	return object_read(c, h, out) == 1 ? 0 : -1;
}

static void env_load(kopt_cache *c)
{
	if (c->env)
		return;
	struct strbuf sb = STRBUF_INIT;
	char *p = path_in(c, "env");
	uint64_t sum;
	if (nofollow_read(c->dir, "env", &sb) < 0 && errno != ENOENT)
		kopt_warn("'%s' cannot be read: %s; the environment fingerprints are forgotten", p, nofollow_why(errno));
	else if (sb.len) {
		if (sb.len > 18 && sb.buf[16] == ' ' && sb.buf[sb.len - 1] == '\n' &&
		    parse_sum(sb.buf, &sum) == 0 && hash_sum64(sb.buf + 17, sb.len - 18) == sum)
			c->env = json_loadb(sb.buf + 17, sb.len - 18, 0, NULL);
		if (!c->env || !json_is_object(c->env)) {
			kopt_warn("'%s' is corrupt; the environment fingerprints are forgotten", p);
			json_decref(c->env);
			c->env = NULL;
		}
	}
	if (!c->env)
		c->env = json_object();
	strbuf_release(&sb);
	free(p);
}

json_t *cache_env_get(kopt_cache *c, const char *device)
{
	env_load(c);
	return json_object_get(c->env, device);
}

int cache_env_set(kopt_cache *c, const char *device, json_t *env)
{
	if (c->absent)
		return refuse(c, "a worker environment");
	env_load(c);
	json_object_set_new(c->env, device, json_deep_copy(env));
	char *js = json_dumps(c->env, JSON_COMPACT | JSON_SORT_KEYS);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%016" PRIx64 " %s\n", hash_sum64(js, strlen(js)), js);
	free(js);
	int r = write_atomic(c, "env", sb.buf, sb.len);
	strbuf_release(&sb);
	return r;
}

/* rewrites the action map with the entries keep() accepts */
static int rewrite_actions(kopt_cache *c, bool marked_only)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, ACTIONS_HEADER);
	size_t n = 0;
	for (size_t i = 0; i < c->nents; i++) {
		struct cache_entry *e = &c->ents[i];
		if (marked_only && !e->mark)
			continue;
		format_record(&sb, e->key, e->stable, e->json, e->len);
		n++;
	}
	int r = write_atomic(c, "actions", sb.buf, sb.len);
	if (r == 0) {
		int fd = nofollow_open(c->dir, "actions", O_RDWR | O_APPEND, 0);
		if (fd >= 0) {
			close(c->actfd);
			c->actfd = fd;
		}
		c->nrecords = n;
		c->ncorrupt = 0;
	}
	strbuf_release(&sb);
	return r;
}

void cache_close(kopt_cache *c)
{
	if (!c)
		return;
	if (c->actfd >= 0) {
		if (c->ncorrupt || (c->nrecords > 64 && c->nrecords >= 2 * c->nents))
			rewrite_actions(c, false); /* drops superseded and corrupt records */
		cache_sync(c, true);
		close(c->actfd);
	}
	free_entries(c);
	if (c->mapped)
		munmap(c->buf, c->buflen);
	else
		free(c->buf);
	json_decref(c->env);
	if (c->lockfd >= 0)
		close(c->lockfd); /* releases the flock */
	free(c->dir);
	free(c);
}

void cache_mark(kopt_cache *c, kopt_hash key)
{
	struct cache_entry *e = table_find(c, key);
	if (e)
		e->mark = true;
}

/* the set of live objects: a sorted array */
static int cmp_hash(const void *a, const void *b)
{
	const kopt_hash *x = a, *y = b;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return 0;
}

static void add_refs(json_t *obj, kopt_hash **live, size_t *n, size_t *cap)
{
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) {
		kopt_hash h;
		if (json_is_object(v)) /* an output: {"hash", "size"} */
			v = json_object_get(v, "hash");
		if (json_is_string(v) && strlen(json_string_value(v)) == 32 &&
		    hash_parse(json_string_value(v), &h) == 0) {
			*live = xgrow(*live, cap, *n + 1, sizeof **live);
			(*live)[(*n)++] = h;
		}
	}
}

/* removes the objects not in live (sorted), and leftover temporary files */
static void gc_objects(kopt_cache *c, const kopt_hash *live, size_t nlive, uint64_t *freed, size_t *nobjects)
{
	struct stat st;
	DIR *d = nofollow_opendir(c->dir, "objects");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *sub = xasprintf("objects/%s", de->d_name);
		if (strncmp(de->d_name, "tmp.", 4) == 0) {
			if (nofollow_stat(c->dir, sub, &st) == 0 && nofollow_unlink(c->dir, sub) == 0)
				*freed += (uint64_t)st.st_size;
		} else if (strlen(de->d_name) == 2 && de->d_name[0] != '.') {
			DIR *sd = nofollow_opendir(c->dir, sub);
			struct dirent *fe;
			while (sd && (fe = readdir(sd))) {
				if (fe->d_name[0] == '.')
					continue;
				char hex[300];
				kopt_hash h;
				snprintf(hex, sizeof hex, "%s%s", de->d_name, fe->d_name);
				char *fp = xasprintf("%s/%s", sub, fe->d_name);
				bool keep = strlen(de->d_name) + strlen(fe->d_name) == 32 &&
					    hash_parse(hex, &h) == 0 && nlive &&
					    bsearch(&h, live, nlive, sizeof *live, cmp_hash);
				if (!keep && nofollow_stat(c->dir, fp, &st) == 0 && nofollow_unlink(c->dir, fp) == 0) {
					*freed += (uint64_t)st.st_size;
					(*nobjects)++;
				}
				free(fp);
			}
			if (sd)
				closedir(sd);
			nofollow_rmdir(c->dir, sub); /* only when empty */
		}
		free(sub);
	}
	if (d)
		closedir(d);
}

int cache_gc(kopt_cache *c, uint64_t *freed, size_t *nentries, size_t *nobjects)
{
	kopt_hash *live = NULL;
	size_t nlive = 0, cap = 0;
	*freed = 0;
	*nentries = 0;
	*nobjects = 0;
	if (c->absent)
		return 0; /* nothing to collect, and no folder to make */
	for (size_t i = 0; i < c->nents; i++) {
		struct cache_entry *e = &c->ents[i];
		if (!e->mark) {
			(*nentries)++;
			continue;
		}
		json_t *m = json_loadb(e->json, e->len, 0, NULL);
		if (m) {
			add_refs(json_object_get(m, "objects"), &live, &nlive, &cap);
			add_refs(json_object_get(m, "outputs"), &live, &nlive, &cap);
			json_decref(m);
		}
	}
	if (nlive) /* qsort's and bsearch's array may not be NULL, even when empty */
		qsort(live, nlive, sizeof *live, cmp_hash);
	struct stat st;
	off_t before = nofollow_stat(c->dir, "actions", &st) == 0 ? st.st_size : 0;
	int r = rewrite_actions(c, true);
	if (r == 0 && nofollow_stat(c->dir, "actions", &st) == 0 && before > st.st_size)
		*freed += (uint64_t)(before - st.st_size);
	gc_objects(c, live, nlive, freed, nobjects);
	free(live);
	/* drop the unmarked entries from memory too */
	size_t j = 0;
	for (size_t i = 0; i < c->nents; i++) {
		if (c->ents[i].mark)
			c->ents[j++] = c->ents[i];
		else if (c->ents[i].owned)
			free((char *)c->ents[i].json);
	}
	c->nents = j;
	free(c->table);
	c->table = NULL;
	c->tcap = 0;
	table_grow(c);
	return r;
}
