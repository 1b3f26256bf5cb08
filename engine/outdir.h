/*
 * engine/outdir.h: files under the output folder (kopt-out/), written and
 * checked without following a symbolic link below it.
 *
 * An output is named by a path relative to the output folder whose
 * components are each one path component (outdir_component_ok): a cache
 * record, which may come from elsewhere, cannot name a file outside it.
 * The output folder itself is opened as the user gave it.
 */
#ifndef KOPT_OUTDIR_H
#define KOPT_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/* whether s[0..len) is one path component: not empty, not "." or "..",
 * no '/' and no NUL */
bool outdir_component_ok(const char *s, size_t len);
/* whether rel is COMPONENT[/COMPONENT]... */
bool outdir_rel_ok(const char *rel);

/*
 * Writes data to root/rel: each folder below root is opened with
 * O_NOFOLLOW (created when missing; a symbolic link or a file in its place
 * is replaced by a folder, with a warning), the file is written to a
 * temporary file in its folder, fsync()ed, renamed over rel (a link there
 * is replaced, not followed) and the folder fsync()ed. 0, or -1 after
 * printing an error.
 */
int outdir_write(const char *root, const char *rel, const void *data, size_t n);

enum outdir_state {
	OUTDIR_SAME,    /* a regular file of that size and hash */
	OUTDIR_MISSING, /* no such file (or folder) */
	OUTDIR_DIFFERS  /* another size, other bytes, or not a regular file */
};

/* Compares root/rel, without following links, with size (UINT64_MAX: any)
 * and hash; *why (static) says how it differs. */
enum outdir_state outdir_check(const char *root, const char *rel, uint64_t size, kopt_hash hash,
			       const char **why);

#endif
