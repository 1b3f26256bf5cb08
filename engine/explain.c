/* engine/explain.c: see explain.h */
#include <config.h>

#include "explain.h"

#include <stdlib.h>
#include <string.h>

#include "../common/util.h"

struct ingr {
	char *name;
	char *val;
};

static struct ingr *split(const char *s, size_t *n)
{
	struct ingr *v = NULL;
	size_t cap = 0;
	*n = 0;
	while (s && *s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		const char *eq = memchr(s, '=', len);
		v = xgrow(v, &cap, *n + 1, sizeof *v);
		if (eq) {
			v[*n].name = xstrndup(s, (size_t)(eq - s));
			v[*n].val = xstrndup(eq + 1, len - (size_t)(eq - s) - 1);
		} else {
			v[*n].name = xstrndup(s, len);
			v[*n].val = xstrdup("");
		}
		(*n)++;
		s += len + (comma ? 1 : 0);
	}
	return v;
}

static const char *lookup(struct ingr *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return v[i].val;
	return NULL;
}

static void say(struct strbuf *sb, const char *const *words, const char *name, const char *what)
{
	if (sb->len)
		strbuf_addstr(sb, "; ");
	for (size_t i = 0; words && words[i]; i += 2)
		if (strcmp(name, words[i]) == 0) {
			strbuf_addf(sb, "%s %s", words[i + 1], what);
			return;
		}
	if (strncmp(name, "param:", 6) == 0)
		strbuf_addf(sb, "parameter %s %s", name + 6, what);
	else if (strncmp(name, "input:", 6) == 0)
		strbuf_addf(sb, "input %s %s", name + 6, what);
	else if (strcmp(name, "rule") == 0)
		strbuf_addf(sb, "rule version %s", what);
	else
		strbuf_addf(sb, "%s %s", name, what);
}

char *explain_diff(const char *prev, const char *cur, const char *const *words)
{
	if (!prev)
		return xstrdup("new step (no earlier run recorded)");
	size_t np, nc;
	struct ingr *p = split(prev, &np), *c = split(cur, &nc);
	struct strbuf sb = STRBUF_INIT;
	int shown = 0, more = 0;
	for (size_t i = 0; i < nc; i++) {
		const char *old = lookup(p, np, c[i].name);
		const char *what = !old ? "is new" : strcmp(old, c[i].val) != 0 ? "changed" : NULL;
		if (!what)
			continue;
		if (shown < 3) {
			say(&sb, words, c[i].name, what);
			shown++;
		} else {
			more++;
		}
	}
	for (size_t i = 0; i < np; i++) {
		if (lookup(c, nc, p[i].name))
			continue;
		if (shown < 3) {
			say(&sb, words, p[i].name, "was removed");
			shown++;
		} else {
			more++;
		}
	}
	if (more)
		strbuf_addf(&sb, "; and %d more", more);
	if (!sb.len)
		strbuf_addstr(&sb, "inputs unchanged but no cached result (removed by gc, or lost)");
	for (size_t i = 0; i < np; i++) {
		free(p[i].name);
		free(p[i].val);
	}
	for (size_t i = 0; i < nc; i++) {
		free(c[i].name);
		free(c[i].val);
	}
	free(p);
	free(c);
	return strbuf_detach(&sb);
}
