/*
 * agents/builtin/configs.c: the built-in tuner: a deterministic enumeration
 * of Triton launch configs per heuristic kind. Candidate i is the i-th
 * config of the enumeration that differs from the kernel's current one.
 *
 * pointwise:  XBLOCK 64..2048 (fastest), num_warps 2..16, num_stages 1..3
 * reductions: R0_BLOCK 128..4096 (fastest), XBLOCK 1..8, num_warps 2..16
 */
#include <config.h>

#include "../agent.h"

#include <string.h>

#include "../../common/util.h"

static const int pw_x[] = { 64, 128, 256, 512, 1024, 2048 };
static const int warps[] = { 2, 4, 8, 16 };
static const int stages[] = { 1, 2, 3 };
static const int red_r[] = { 128, 256, 512, 1024, 2048, 4096 };
static const int red_x[] = { 1, 2, 4, 8 };

#define N(a) ((int)(sizeof a / sizeof *a))

static bool is_reduction(const char *h)
{
	return h && strstr(h, "reduction") != NULL;
}

static int count_for(const char *h)
{
	return is_reduction(h) ? N(red_r) * N(red_x) * N(warps) : N(pw_x) * N(warps) * N(stages);
}

static json_t *nth(const char *h, int j)
{
	if (is_reduction(h))
		return json_pack("{s:i, s:i, s:i, s:i}", "XBLOCK", red_x[(j / N(red_r)) % N(red_x)],
				 "R0_BLOCK", red_r[j % N(red_r)],
				 "num_warps", warps[(j / (N(red_r) * N(red_x))) % N(warps)], "num_stages", 1);
	return json_pack("{s:i, s:i, s:i}", "XBLOCK", pw_x[j % N(pw_x)],
			 "num_warps", warps[(j / N(pw_x)) % N(warps)],
			 "num_stages", stages[(j / (N(pw_x) * N(warps))) % N(stages)]);
}

/* same launch config as the current one, on the keys the enumeration sets */
static bool same(const json_t *cand, const json_t *cur)
{
	if (!cur || !json_is_object(cur))
		return false;
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)cand, k, v) {
		json_t *c = json_object_get(cur, k);
		if (!c) {
			if (strcmp(k, "num_stages") == 0 && json_integer_value(v) == 1)
				continue;
			return false;
		}
		if (json_integer_value(c) != json_integer_value(v))
			return false;
	}
	return true;
}

json_t *agent_builtin_config(const char *heuristic, const json_t *current, int index, char **reason)
{
	int n = count_for(heuristic), seen = -1;
	*reason = NULL;
	if (index < 0)
		return NULL;
	for (int j = 0; j < n; j++) {
		json_t *c = nth(heuristic, j);
		if (same(c, current)) {
			json_decref(c);
			continue;
		}
		if (++seen == index)
			return c;
		json_decref(c);
	}
	*reason = xasprintf("the %s launch-config sweep has %d configs besides the current one",
			    is_reduction(heuristic) ? "reduction" : "pointwise", seen + 1);
	return NULL;
}
