/*
 * agents/builtin/launch.c: launch configs for the built-in agents: the
 * strategies that move a config's keys (XBLOCK, YBLOCK, R0_BLOCK,
 * num_warps, num_stages) and the ranges they are kept in, configs compared
 * and written for people, a kernel's feature class and a config's shape
 * for the long-term memory, and the candidates made of them.
 */
#include <config.h>

#include "launch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"

static const struct strategy strategies[] = {
	{ "warps-down", { "num_warps" }, { 0.5 } },
	{ "warps-up", { "num_warps" }, { 2 } },
	{ "x-up", { "XBLOCK" }, { 2 } },
	{ "x-down", { "XBLOCK" }, { 0.5 } },
	{ "x-up4", { "XBLOCK" }, { 4 } },
	{ "y-up", { "YBLOCK" }, { 2 } },
	{ "y-down", { "YBLOCK" }, { 0.5 } },
	{ "r-up", { "R0_BLOCK" }, { 2 } },
	{ "r-down", { "R0_BLOCK" }, { 0.5 } },
	{ "r-down4", { "R0_BLOCK" }, { 0.25 } },
	{ "stages-up", { "num_stages" }, { 2 } },
	{ "x-up-warps-up", { "XBLOCK", "num_warps" }, { 2, 2 } },
	{ "x-down-warps-down", { "XBLOCK", "num_warps" }, { 0.5, 0.5 } },
	{ "r-down-warps-down", { "R0_BLOCK", "num_warps" }, { 0.5, 0.5 } },
	{ "r-up-warps-up", { "R0_BLOCK", "num_warps" }, { 2, 2 } },
	{ "y-up-x-down", { "YBLOCK", "XBLOCK" }, { 2, 0.5 } },
	{ "evict-first", { NULL }, { 0 } }, /* source edit */
	{ "persistent", { NULL }, { 0 } },  /* source edit with its own config (persist.c) */
};
#define NSTRAT (sizeof strategies / sizeof *strategies)

const struct strategy *launch_strategy(const char *name)
{
	for (size_t i = 0; i < NSTRAT; i++)
		if (strcmp(strategies[i].name, name) == 0)
			return &strategies[i];
	return NULL;
}

/* the ranges a launch config's parameters are kept in: at most 32 warps
 * (1024 threads, a CUDA block's limit), 4 stages, blocks of 8192 and of
 * no more than Inductor's largest for the axis (agent_launch_max: gate 1
 * refuses a config past it) */
int launch_clamp(const char *p, double v, int *out)
{
	long x = lround(v);
	if (strcmp(p, "num_warps") == 0) {
		if (x < 1 || x > 32)
			return -1;
	} else if (strcmp(p, "num_stages") == 0) {
		if (x < 1 || x > 4)
			return -1;
	} else {
		long most = agent_launch_max(p);
		if (x < 1 || x > 8192 || (most > 0 && x > most))
			return -1;
	}
	*out = (int)x;
	return 0;
}

/* applies s to base; NULL when it does not apply (a missing key, a bound) */
json_t *launch_apply(const struct strategy *s, const json_t *base)
{
	if (!s->param[0] || !json_is_object(base))
		return NULL;
	json_t *c = json_deep_copy(base);
	for (int i = 0; i < 2 && s->param[i]; i++) {
		json_t *v = json_object_get(c, s->param[i]);
		int x;
		if (strcmp(s->param[i], "num_stages") == 0) {
			long cur = v ? (long)json_integer_value(v) : 1;
			if (launch_clamp("num_stages", (double)(cur + 1), &x) < 0) {
				json_decref(c);
				return NULL;
			}
		} else if (!json_is_integer(v) || launch_clamp(s->param[i], (double)json_integer_value(v) * s->factor[i], &x) < 0) {
			json_decref(c);
			return NULL;
		}
		json_object_set_new(c, s->param[i], json_integer(x));
	}
	return c;
}

/* "XBLOCK=2 R0_BLOCK=1024 num_warps=8 num_stages=1", and maxnreg where
 * the config sets it */
void launch_text(struct strbuf *sb, const json_t *c)
{
	int first = 1;
	for (size_t i = 0; i < AGENT_LAUNCH_NKEYS; i++) {
		json_t *v = json_object_get(c, agent_launch_keys[i]);
		if (!v)
			continue;
		strbuf_addf(sb, "%s%s=%lld", first ? "" : " ", agent_launch_keys[i], (long long)json_integer_value(v));
		first = 0;
	}
	if (json_is_integer(json_object_get(c, "maxnreg")))
		strbuf_addf(sb, "%smaxnreg=%lld", first ? "" : " ",
			    (long long)json_integer_value(json_object_get(c, "maxnreg")));
}

int launch_same(const json_t *a, const json_t *b)
{
	if (!a || !b)
		return a == b;
	for (size_t i = 0; i < AGENT_LAUNCH_NKEYS; i++) {
		json_t *x = json_object_get(a, agent_launch_keys[i]), *y = json_object_get(b, agent_launch_keys[i]);
		long long vx = x ? json_integer_value(x) : (strcmp(agent_launch_keys[i], "num_stages") == 0 ? 1 : -1);
		long long vy = y ? json_integer_value(y) : (strcmp(agent_launch_keys[i], "num_stages") == 0 ? 1 : -1);
		if (vx != vy)
			return 0;
	}
	return 1;
}

static bool five_key(const char *key)
{
	for (size_t i = 0; i < AGENT_LAUNCH_NKEYS; i++)
		if (strcmp(key, agent_launch_keys[i]) == 0)
			return true;
	return false;
}

/* launch_same, and every other key alike: a screened config may set keys
 * beyond the five (R1_BLOCK) */
int launch_equal(const json_t *a, const json_t *b)
{
	if (!json_is_object(a) || !json_is_object(b) || !launch_same(a, b))
		return 0;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)a, key, v)
		if (!five_key(key) && !json_equal(v, json_object_get(b, key)))
			return 0;
	json_object_foreach((json_t *)b, key, v)
		if (!five_key(key) && !json_equal(v, json_object_get(a, key)))
			return 0;
	return 1;
}

/* a candidate of strategy name (config stolen), source made by edit (or
 * NULL): "ROLE: WHAT (CONFIG)" for people */
json_t *launch_candidate_edit(json_t *config, const char *source, const char *edit, const char *role,
			      const char *name, const char *what, const json_t *cfgtext_of)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s: %s", role, what);
	if (cfgtext_of) {
		strbuf_addstr(&sb, " (");
		launch_text(&sb, cfgtext_of);
		strbuf_addstr(&sb, ")");
	}
	struct agent_candidate ac = { .source = source, .config = config, .role = role, .strategy = sb.buf,
				      .edit = edit };
	snprintf(ac.name, sizeof ac.name, "%s", name);
	json_t *c = agent_candidate_new(&ac);
	json_decref(config);
	strbuf_release(&sb);
	return c;
}

json_t *launch_candidate(json_t *config, const char *source, const char *role, const char *name, const char *what,
			 const json_t *cfgtext_of)
{
	return launch_candidate_edit(config, source, NULL, role, name, what, cfgtext_of);
}
