/*
 * engine/cache.h: the persistent cache in .kopt/: content-addressed objects,
 * the action map (key -> result manifest), the remembered worker
 * environments, and the lock that keeps two koptmake processes apart.
 * The on-disk formats are described at the top of cache.c.
 *
 * A kopt_cache is opened with the lock held and closed with cache_close(),
 * which syncs and, when worthwhile, compacts the action map. Pointers into
 * entries stay valid until cache_close().
 */
#ifndef KOPT_CACHE_H
#define KOPT_CACHE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "hash.h"

typedef struct kopt_cache kopt_cache;

/* One action-map entry; owned by the cache. */
struct cache_entry {
	kopt_hash key;     /* the step's key */
	kopt_hash stable;  /* hash of the result's stable part */
	const char *json;  /* the manifest, one line of JSON, not NUL-terminated */
	size_t len;        /* its length */
	bool mark;         /* reached by the current spec (gc) */
	bool owned;        /* json was allocated by this process (freed at close) */
};

/*
 * Opens (creating it when absent) the cache folder dir and takes its lock,
 * waiting up to $KOPT_LOCK_WAIT_MS (default 2000) for another holder.
 * Returns NULL after printing an error.
 */
kopt_cache *cache_open(const char *dir);
/* Like cache_open, but where dir does not exist: an empty cache that makes
 * no folder, takes no lock and refuses writes (-n, the tools, a spec with
 * nothing to build: make -n writes nothing either). */
kopt_cache *cache_open_existing(const char *dir);
/* false for the empty stand-in cache_open_existing() gives */
bool cache_exists(const kopt_cache *c);
/* whether the action map holds no record, read or written */
bool cache_empty(const kopt_cache *c);
/* closes the action map unwritten: nothing of c is written again, at
 * close either (-t distclean, before it removes the folder) */
void cache_drop_writes(kopt_cache *c);
void cache_close(kopt_cache *c);
const char *cache_path(const kopt_cache *c);

/* The entry for key, or NULL (absent, or corrupt and reported when loaded). */
struct cache_entry *cache_get(kopt_cache *c, kopt_hash key);
/* Records key -> manifest (compact JSON, one line). 0 or -1. */
int cache_put(kopt_cache *c, kopt_hash key, kopt_hash stable, const char *manifest);
/* Makes the appended entries durable (fdatasync): at once when force, else
 * at most every 100 ms (group commit; the scheduler calls it every turn). */
int cache_sync(kopt_cache *c, bool force);
/* number of entries read at open that were corrupt (each reported once) */
size_t cache_corrupt_count(const kopt_cache *c);
/* whether some corrupt entry had this key (for -d explain) */
bool cache_was_corrupt(const kopt_cache *c, kopt_hash key);

/* Content-addressed objects. put: stores bytes, sets *out. get: reads and
 * verifies; a corrupt object is reported, removed and treated as missing. */
int cache_object_put(kopt_cache *c, const void *data, size_t n, kopt_hash *out);
int cache_object_get(kopt_cache *c, kopt_hash h, struct strbuf *out);

/* The environment fingerprint last reported by a worker of device, or NULL
 * (borrowed from the cache). set: copies env and writes the file. */
json_t *cache_env_get(kopt_cache *c, const char *device);
int cache_env_set(kopt_cache *c, const char *device, json_t *env);

/*
 * Garbage collection: mark every entry a current spec reaches (cache_mark),
 * then cache_gc rewrites the action map with the marked entries only and
 * removes the objects no marked manifest names. Prints nothing; returns the
 * bytes freed through *freed and the counts through *nentries and *nobjects.
 */
void cache_mark(kopt_cache *c, kopt_hash key);
int cache_gc(kopt_cache *c, uint64_t *freed, size_t *nentries, size_t *nobjects);

/*
 * The remote cache behind this one (engine/remote.h), or NULL: cache_get
 * asks it on a local miss, and records put here are sent to it once
 * durable (cache_sync, cache_close). Borrowed: it must outlive the close.
 */
struct kopt_remote;
void cache_set_remote(kopt_cache *c, struct kopt_remote *r);

/* One action record as the map holds it: format appends the line and its
 * newline to sb; parse checks a line (without its newline) and returns 0
 * with the fields (json points into line), or -1. */
void cache_record_format(struct strbuf *sb, kopt_hash key, kopt_hash stable, const char *json, size_t jlen);
int cache_record_parse(const char *line, size_t n, kopt_hash *key, kopt_hash *stable, const char **json,
		       size_t *jlen);

/* Loader of an action-map image, exposed for the fuzz test: parses buf and
 * returns the number of good entries; *ncorrupt gets the bad ones and
 * *good_len the length of the untorn prefix. Prints warnings tagged name. */
size_t cache_parse_actions(const char *name, const char *buf, size_t len,
			   size_t *ncorrupt, size_t *good_len);

#endif
