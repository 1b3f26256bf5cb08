/*
 * rules/keys.c: the key ingredients the rules share: a compile variant's
 * and the gates' parameters (from lang/fields.h's lists, LANG_KEY), the
 * tolerances alone, a pinned config's version, an input's stable hash.
 */
#define _POSIX_C_SOURCE 200809L
#include <config.h>

#include "keys.h"

#include <stdlib.h>
#include <string.h>

#include "../common/util.h"
#include "../lang/fields.h"
#include "space.h"

/* each field of a block with LANG_KEY as the ingredient "param:NAME":
 * numbers in decimal (doubles as %.17g, exact), strings as they are, lists
 * as their items each followed by ';'. One buffer serves the block's
 * lists, as it always has: an empty list is the absent marker until a list
 * before it had items, then the empty string (changing that would change
 * every variant's key). */
static void key_fields(struct hash_key *k, const struct lang_fields *fs, const void *base)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < fs->n; i++) {
		const struct lang_field *f = &fs->f[i];
		if (!(f->flags & LANG_KEY))
			continue;
		char name[64];
		snprintf(name, sizeof name, "param:%s", f->name);
		const char *p = (const char *)base + f->off;
		size_t n = f->noff ? *(const size_t *)((const char *)base + f->noff) : 0;
		strbuf_reset(&sb);
		switch (f->type) {
		case LANG_F_INT: hash_key_int(k, name, *(const int *)p); break;
		case LANG_F_LONG: hash_key_int(k, name, *(const long *)p); break;
		case LANG_F_U64: hash_key_int(k, name, (long long)*(const uint64_t *)p); break;
		case LANG_F_REAL:
		case LANG_F_FRACTION:
		case LANG_F_DURATION: hash_key_double(k, name, *(const double *)p); break;
		case LANG_F_BOOL: hash_key_int(k, name, *(const bool *)p); break;
		case LANG_F_PRECISION: {
			enum kopt_precision x = *(const enum kopt_precision *)p;
			hash_key_str(k, name, lang_precision_names[x < KOPT_PRECISION_COUNT ? x : 0]);
			break;
		}
		case LANG_F_OPTIONS: /* KEY=JSON; for each, in the spec's order */
			for (size_t j = 0; j < n; j++)
				strbuf_addf(&sb, "%s=%s;", (*(struct kopt_option *const *)p)[j].key,
					    (*(struct kopt_option *const *)p)[j].json);
			hash_key_str(k, name, sb.buf);
			break;
		case LANG_F_STRLIST: /* NAME; for each */
			for (size_t j = 0; j < n; j++)
				strbuf_addf(&sb, "%s;", (*(char **const *)p)[j]);
			hash_key_str(k, name, sb.buf);
			break;
		case LANG_F_STR:
		case LANG_F_PROVIDER:
		case LANG_F_MODE: hash_key_str(k, name, *(char *const *)p); break;
		default: kopt_die("no key form for field '%s'", f->name);
		}
	}
	strbuf_release(&sb);
}

void rule_key_variant(struct hash_key *k, const struct kopt_variant *v)
{
	key_fields(k, &lang_variant_fields, v);
}

void rule_key_gates(struct hash_key *k, const struct kopt_gates *g)
{
	key_fields(k, &lang_gates_fields, g);
}

void rule_key_tolerances(struct hash_key *k, const struct kopt_gates *g)
{
	hash_key_double(k, "param:atol", g->atol);
	hash_key_double(k, "param:rtol", g->rtol);
	hash_key_double(k, "param:atol_half", g->atol_half);
	hash_key_double(k, "param:rtol_half", g->rtol_half);
}

#define PINNED_VERSION 2

/* whether torch tunes a pinned config of this variant's Triton kernels at
 * its first launch: every max-autotune mode turns coordinate descent on,
 * and so does the option itself */
static bool tunes_pinned(const struct kopt_variant *v)
{
	bool on = rule_max_autotune(v->mode);
	for (size_t i = 0; i < v->noptions; i++)
		if (strcmp(v->options[i].key, "coordinate_descent_tuning") == 0)
			on = strcmp(v->options[i].json, "true") == 0;
	return on;
}

void rule_key_pinned(struct hash_key *k, const struct kopt_variant *v)
{
	if (tunes_pinned(v))
		hash_key_int(k, "param:pinned", PINNED_VERSION);
}

void rule_key_input(struct hash_key *k, const struct dag_node *dep)
{
	char buf[512];
	const char *kind = dep->rule->name;
	size_t kl = strlen(kind), pl = strlen(dep->path);
	if (6 + kl + 1 + pl + 1 > sizeof buf) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "input:");
		dag_describe(dep, &sb);
		hash_key_hash(k, sb.buf, dep->out);
		strbuf_release(&sb);
		return;
	}
	memcpy(buf, "input:", 6);
	memcpy(buf + 6, kind, kl);
	buf[6 + kl] = ' ';
	memcpy(buf + 7 + kl, dep->path, pl + 1);
	hash_key_hash(k, buf, dep->out);
}
