/*
 * engine/remote.h: a cache shared over HTTP, behind the local one.
 *
 * The layout is bazel-remote's HTTP cache: under the base URL,
 * ac/KEY holds an action record and cas/HEX a content object, read with
 * GET and written with PUT; any server that stores what is PUT and serves
 * it back (nginx with WebDAV's PUT, Apache mod_dav, bazel-remote without
 * its SHA-256 checks) will do. An action record is the line the local
 * action map holds for KEY (cache.c: key, stable hash, manifest, and its
 * own XXH3-64 checksum), then a line with its seal (engine/seal.h); an
 * object is its bytes, then the 64 hex digits of their seal, and its name
 * is the XXH3-128 of its bytes.
 *
 * The local cache asks the remote on a miss (cache_get): a record is used
 * only when its seal holds under this machine's key, its checksum holds,
 * it names the key asked for, and every object its manifest names is here
 * or comes from the remote sealed, with bytes that hash to its name;
 * anything less is a miss, and the step runs here. A team that shares a
 * remote shares the seal key ($KOPT_SEAL_KEY, or one key file).
 * What the remote gives is written to the local cache, so the next build
 * asks nothing. Records put locally are sent when the local cache has made
 * them durable (cache_sync): each object, then the record; read-only mode
 * (the URL ends with #readonly) sends nothing.
 *
 * A server that cannot be reached, is slow (3 s to connect; below 1 KiB/s
 * for 5 s; 60 s for one request) or answers with an error costs one warning
 * and the rest of the build runs without it: the first failure turns the
 * remote off. A missing entry (404) is a miss, not a failure.
 *
 * Credentials: $KOPT_REMOTE_CACHE_AUTH ("user:password" for basic
 * authentication, or "Bearer TOKEN"), else the machine's entry in
 * ~/.netrc. Never from the spec or the URL; no message prints them.
 */
#ifndef KOPT_REMOTE_H
#define KOPT_REMOTE_H

#include <stdbool.h>
#include <stdio.h>

#include "../common/util.h"
#include "hash.h"

typedef struct kopt_remote kopt_remote;
struct kopt_cache;

/* A remote for url (kopt_url_problem must hold); no network yet.
 * NULL with *why (caller frees) when url is not one. */
kopt_remote *remote_new(const char *url, char **why);
void remote_free(kopt_remote *r);

/* GET base/kind/hex: 1 with the body in out, 0 when the server has none,
 * -1 when the request failed (the remote is off from now on, warned once) */
int remote_get(kopt_remote *r, const char *kind, const char *hex, struct strbuf *out);
/* PUT base/kind/hex: 0, or -1 as remote_get; read-only: 0, nothing sent */
int remote_put(kopt_remote *r, const char *kind, const char *hex, const void *data, size_t n);

/* The layering (called by cache.c): fetch fills the local cache c with the
 * remote's record for key and its objects (1), or says it has none usable
 * (0); queue notes a record just put locally, flush sends the queued ones. */
int remote_fetch(kopt_remote *r, struct kopt_cache *c, kopt_hash key);
void remote_queue(kopt_remote *r, kopt_hash key);
void remote_flush(kopt_remote *r, struct kopt_cache *c);

/* one line of counts, for -v */
void remote_summary(const kopt_remote *r, FILE *out);

#endif
