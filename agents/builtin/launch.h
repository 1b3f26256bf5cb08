/*
 * agents/builtin/launch.h: launch configs and the strategies that move
 * them, for the built-in agents (internal to agents/builtin; launch.c).
 */
#ifndef KOPT_BUILTIN_LAUNCH_H
#define KOPT_BUILTIN_LAUNCH_H

#include "../builtin.h"
#include "../features.h"

#include <jansson.h>

struct strategy {
	const char *name;
	const char *param[2]; /* parameters it moves */
	double factor[2];     /* their factors (0 = set num_stages) */
};

/* the strategy of that name, or NULL */
const struct strategy *launch_strategy(const char *name);
/* v rounded into the range of parameter p, in *out; -1 when out of it */
int launch_clamp(const char *p, double v, int *out);
/* s applied to base (new reference); NULL when it does not apply */
json_t *launch_apply(const struct strategy *s, const json_t *base);

/* appends "XBLOCK=2 R0_BLOCK=1024 num_warps=8 num_stages=1" (and maxnreg) */
void launch_text(struct strbuf *sb, const json_t *c);
/* 1 when a and b agree on the five keys (num_stages defaults to 1) */
int launch_same(const json_t *a, const json_t *b);
/* launch_same, and every other key alike */
int launch_equal(const json_t *a, const json_t *b);

/* a candidate of strategy name (config stolen), source made by edit (or
 * NULL): "ROLE: WHAT (CONFIG)" for people, the config text of
 * cfgtext_of; new reference */
json_t *launch_candidate_edit(json_t *config, const char *source, const char *edit, const char *role,
			      const char *name, const char *what, const json_t *cfgtext_of);
/* launch_candidate_edit without an edit */
json_t *launch_candidate(json_t *config, const char *source, const char *role, const char *name, const char *what,
			 const json_t *cfgtext_of);

#endif
