/*
 * lang/lang.h: the spec language front end: lex, parse, check.
 */
#ifndef KOPT_LANG_H
#define KOPT_LANG_H

#include <stdio.h>

#include "spec.h"

/*
 * Reads, parses and checks the spec at path (following includes). Every
 * diagnostic goes to report(ctx, ...); all errors of a file are reported, not
 * just the first. On success returns 0 and sets *out (caller frees with
 * kopt_spec_free). On any error returns -1 and *out is NULL. Reads only: a
 * spec with errors changes nothing on disk.
 */
int lang_load(const char *path, kopt_diag_fn *report, void *ctx, kopt_spec **out);

/* What a load may read besides the spec's folder (lang/paths.c): the
 * folders of --allow-root, each an existing folder. */
struct lang_opts {
	const char *const *roots;
	size_t nroots;
};
/* lang_load with options (NULL: none) */
int lang_load_opts(const char *path, const struct lang_opts *o, kopt_diag_fn *report, void *ctx, kopt_spec **out);

/* Same, from a buffer; name is used in diagnostics and dir resolves paths
 * (NULL: the folder of name). */
int lang_load_buffer(const char *name, const char *dir, const char *src, size_t len,
		     kopt_diag_fn *report, void *ctx, kopt_spec **out);

/* Writes the checked spec in one canonical form (`koptmake -t dump`). */
void lang_dump(const kopt_spec *spec, FILE *out);

#endif
