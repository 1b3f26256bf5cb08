/*
 * lang/include.c: include "FILE": read in place, once per file (by device
 * and inode, as #pragma once), an include cycle an error, and at most
 * INCLUDE_DEPTH files deep (as GCC's #include): each level is a few
 * frames of C stack, and a chain of 20,000 files overflowed it. The file
 * is inside the spec's folder or an allowed one, and looks like a spec by
 * its name (lang/paths.c).
 */
#define _GNU_SOURCE
#include "load.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define INCLUDE_DEPTH 200

char *lang_file_key(const char *path, const struct stat *st)
{
	(void)path;
	return xasprintf("%ju:%ju", (uintmax_t)st->st_dev, (uintmax_t)st->st_ino);
}

void lang_do_include(struct loader *L, const struct ast_stmt *s, const char *dir)
{
	struct ast_value *v = lang_eval(L, s->value);
	struct stat st;
	if (!v)
		return;
	char *path = lang_join(dir, v->str);
	if (lang_path_inside(L, &v->loc, "include", path) < 0)
		goto out;
	if (stat(path, &st) < 0) {
		lang_err(&L->D, &v->loc, "cannot read include '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		lang_err(&L->D, &v->loc, "include '%s' is not a regular file", path);
		goto out;
	}
	/* its name, and the name of the file it is a link to */
	char *real = realpath(path, NULL);
	bool spec = lang_spec_name(path) && real && lang_spec_name(real);
	free(real);
	if (!spec) { /* never read: a file of keys parses as variables */
		lang_err(&L->D, &v->loc, "include '%s' is not a spec: an included file is a *.kopt file or a Koptfile",
			 path);
		goto out;
	}
	char *key = lang_file_key(path, &st);
	for (size_t i = 0; i < L->depth; i++) {
		if (strcmp(L->stack[i], key) != 0)
			continue;
		struct strbuf chain = STRBUF_INIT;
		for (size_t k = i; k < L->depth; k++)
			strbuf_addf(&chain, "%s -> ", L->stackpath[k]);
		strbuf_addstr(&chain, path);
		lang_err(&L->D, &v->loc, "include cycle: %s", chain.buf);
		strbuf_release(&chain);
		free(key);
		goto out;
	}
	if (lang_smap_get(&L->seen, key)) { /* read once, like #pragma once */
		free(key);
		goto out;
	}
	if (L->depth >= INCLUDE_DEPTH) {
		lang_err(&L->D, &v->loc, "include '%s' nested too deeply: more than %d files", path, INCLUDE_DEPTH);
		free(key);
		goto out;
	}
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		lang_err(&L->D, &v->loc, "cannot read include '%s': %s", path, strerror(errno));
		free(key);
		strbuf_release(&sb);
		goto out;
	}
	char *idir = lang_dir_of(path);
	lang_load_text(L, path, idir, sb.buf, sb.len, key);
	free(idir);
	strbuf_release(&sb);
out:
	free(path);
	ast_value_free(v);
}
