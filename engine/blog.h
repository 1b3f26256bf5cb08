/*
 * engine/blog.h: the build log (.kopt/log): what ran, when, for how long,
 * why it was stale, and how it ended. Format at the top of blog.c.
 *
 * The log is read only when needed: on the first question about a step's
 * last run, or when a step is about to run (blog_ready), which opens it for
 * writing (a torn tail trimmed). -n and the tools write nothing to it.
 */
#ifndef KOPT_BLOG_H
#define KOPT_BLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "hash.h"

typedef struct kopt_blog kopt_blog;

struct blog_record {
	double start;            /* wall clock, seconds since the epoch */
	double dur;              /* seconds */
	const char *outcome;     /* "ok", "failed: REASON", "cancelled" */
	const char *kind;        /* step kind */
	const char *path;        /* step path */
	kopt_hash key;
	const char *why;         /* why it was stale */
	const char *ingredients; /* hash_key_ingredients() of its key */
};

kopt_blog *blog_open(const char *path); /* never fails; errors are reported on use */
void blog_close(kopt_blog *b);          /* compacts when most records are superseded */
/* the log read and open for appending, before a step runs: 0, or -1 after
 * saying why (once: every later call fails quietly) */
int blog_ready(kopt_blog *b);
int blog_append(kopt_blog *b, const struct blog_record *r);
/* whether reading or writing the log failed: the build must not end with 0 */
bool blog_failed(const kopt_blog *b);
/* the ingredients of the last successful run of "KIND PATH", or NULL; borrowed */
const char *blog_last_ingredients(kopt_blog *b, const char *kind, const char *path);

/* Loader exposed for the fuzz test: number of good records in buf. */
size_t blog_parse(const char *name, const char *buf, size_t len, size_t *ncorrupt, size_t *good_len);

#endif
