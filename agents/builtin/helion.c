/*
 * agents/builtin/helion.c: the built-in agents on a Helion kernel, whose
 * candidates are helion.Config's, not Triton launch configs.
 *
 * A Helion kernel's inventory entry has heuristic "helion" and, as its
 * config, the helion.Config in use as JSON: {"block_sizes":[64,128],
 * "num_warps":4, "num_stages":2, "indexing":"pointer", "pid_type":"flat",
 * "loop_orders":[[0,1]], "range_*":[...], ...}. The moves change one or
 * two of its keys and leave the rest as Helion wrote them:
 *
 *   b<i>-up, b<i>-down     block_sizes[i] doubled or halved
 *   warps-up, warps-down   num_warps doubled or halved (1 to 32)
 *   stages-up, stages-down num_stages plus or minus one (1 to 8)
 *   b0-up-warps-up, b0-down-warps-down   both at once
 *   indexing-pointer, indexing-block_ptr, indexing-tensor_descriptor
 *                          every load and store indexed so
 *   pid-flat, pid-persistent_blocked, pid-persistent_interleaved
 *   loop-swap              the first loop order's first two dimensions
 *                          swapped
 *
 * Candidate 0 is the profile's start where there is one (the config of
 * Helion's quick autotune, when it differs from the kernel's own: the
 * profile ran that search, and its time is the profile's), else the first
 * move of the plan from the kernel's own config. Then the tuner: the moves
 * from the best passing config so far (or the kernel's own), in the plan's
 * order, the first one not tried; then seeded random pairs of moves. The
 * plan ranks the moves by the long-term memory for the kernel's feature
 * class, as for Triton launch configs, and a lesson's shape is the config
 * itself (agent_shape).
 *
 * A config that failed for want of shared memory or registers rules out
 * every config that asks at least as much (larger or equal blocks and
 * stages, the rest the same but the warps): they are not proposed.
 *
 * Where a helion.Config cannot express a change, no candidate is made: the
 * worker rejects source candidates for Helion kernels.
 */
#include <config.h>

#include "../builtin.h"
#include "../memory.h"
#include "helion.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"

#define MAX_BLOCKS 8

/* the moves in the built-in order, best first for a kernel without lessons */
static const char *const prior[] = {
	"b0-up", "b0-down", "warps-up", "warps-down", "b1-up", "b1-down", "stages-up", "stages-down",
	"b0-up-warps-up", "b0-down-warps-down", "b2-up", "b2-down", "indexing-block_ptr",
	"indexing-tensor_descriptor", "indexing-pointer", "pid-persistent_blocked",
	"pid-persistent_interleaved", "pid-flat", "loop-swap",
};
#define NPRIOR (sizeof prior / sizeof *prior)

static int scale_int(json_t *c, const char *key, double f, long lo, long hi)
{
	json_t *v = json_object_get(c, key);
	if (!json_is_integer(v))
		return -1;
	double x = (double)json_integer_value(v) * f;
	if (x < (double)lo || x > (double)hi || x != (double)(long)x)
		return -1;
	json_object_set_new(c, key, json_integer((long)x));
	return 0;
}

static int scale_block(json_t *c, size_t i, double f)
{
	json_t *bs = json_object_get(c, "block_sizes");
	json_t *v = json_array_get(bs, i);
	if (!json_is_integer(v))
		return -1;
	double x = (double)json_integer_value(v) * f;
	if (x < 1 || x > 65536 || x != (double)(long)x)
		return -1;
	json_array_set_new(bs, i, json_integer((long)x));
	return 0;
}

/* every entry of a string-or-list key set to value; -1 when already so */
static int set_each(json_t *c, const char *key, const char *value)
{
	json_t *v = json_object_get(c, key);
	int changed = 0;
	if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) {
			if (!json_is_string(e) || strcmp(json_string_value(e), value) != 0)
				changed = 1;
			json_array_set_new(v, i, json_string(value));
		}
	} else {
		changed = !json_is_string(v) || strcmp(json_string_value(v), value) != 0;
		json_object_set_new(c, key, json_string(value));
	}
	return changed ? 0 : -1;
}

static int swap_loop(json_t *c)
{
	json_t *lo = json_array_get(json_object_get(c, "loop_orders"), 0);
	if (json_array_size(lo) < 2)
		return -1;
	json_t *a = json_incref(json_array_get(lo, 0)), *b = json_incref(json_array_get(lo, 1));
	json_array_set_new(lo, 0, b);
	json_array_set_new(lo, 1, a);
	return 0;
}

json_t *helion_apply(const char *move, const json_t *base)
{
	if (!agent_helion_config(base))
		return NULL;
	json_t *c = json_deep_copy(base);
	int r = -1;
	unsigned i;
	char dir[8];
	if (strcmp(move, "warps-up") == 0)
		r = scale_int(c, "num_warps", 2, 1, 32);
	else if (strcmp(move, "warps-down") == 0)
		r = scale_int(c, "num_warps", 0.5, 1, 32);
	else if (strcmp(move, "stages-up") == 0 || strcmp(move, "stages-down") == 0) {
		json_t *v = json_object_get(c, "num_stages");
		long s = json_is_integer(v) ? (long)json_integer_value(v) : 1;
		s += move[7] == 'u' ? 1 : -1;
		if (s >= 1 && s <= 8) {
			json_object_set_new(c, "num_stages", json_integer(s));
			r = 0;
		}
	} else if (strcmp(move, "b0-up-warps-up") == 0)
		r = scale_block(c, 0, 2) < 0 ? -1 : scale_int(c, "num_warps", 2, 1, 32);
	else if (strcmp(move, "b0-down-warps-down") == 0)
		r = scale_block(c, 0, 0.5) < 0 ? -1 : scale_int(c, "num_warps", 0.5, 1, 32);
	else if (sscanf(move, "b%u-%4[a-z]", &i, dir) == 2 && i < MAX_BLOCKS && !strchr(move + 3, '-'))
		r = scale_block(c, i, strcmp(dir, "up") == 0 ? 2 : 0.5);
	else if (strncmp(move, "indexing-", 9) == 0 && json_object_get(c, "indexing"))
		r = set_each(c, "indexing", move + 9);
	else if (strncmp(move, "pid-", 4) == 0 && json_object_get(c, "pid_type"))
		r = set_each(c, "pid_type", move + 4);
	else if (strcmp(move, "loop-swap") == 0)
		r = swap_loop(c);
	if (r < 0) {
		json_decref(c);
		return NULL;
	}
	return c;
}

static bool same(const json_t *a, const json_t *b)
{
	return json_is_object(a) && json_is_object(b) && json_equal((json_t *)a, (json_t *)b);
}

/* whether a try failed for want of the GPU's shared memory or registers
 * (Triton's OutOfResources, in the correctness gate's reason) */
static bool too_big(const struct agent_try *t)
{
	return t->reason && t->verdict && strcmp(t->verdict, "pass") != 0 &&
	       (strstr(t->reason, "out of resource") || strstr(t->reason, "OutOfResources"));
}

/* whether c asks at least as much of the SM as big: each block size and
 * num_stages no smaller, every other key but num_warps the same. Shared
 * memory grows with tiles and stages, so c cannot fit where big did not. */
static bool needs_more(const json_t *c, const json_t *big)
{
	const json_t *cb = json_object_get(c, "block_sizes"), *bb = json_object_get(big, "block_sizes");
	if (!json_is_array(cb) || !json_is_array(bb) || json_array_size(cb) != json_array_size(bb))
		return false;
	for (size_t i = 0; i < json_array_size(cb); i++)
		if (json_integer_value(json_array_get(cb, i)) < json_integer_value(json_array_get(bb, i)))
			return false;
	json_int_t cs = json_integer_value(json_object_get(c, "num_stages"));
	json_int_t bs = json_integer_value(json_object_get(big, "num_stages"));
	if ((cs ? cs : 1) < (bs ? bs : 1))
		return false;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)c, key, v)
		if (strcmp(key, "block_sizes") && strcmp(key, "num_stages") && strcmp(key, "num_warps") &&
		    !json_equal(v, json_object_get(big, key)))
			return false;
	json_object_foreach((json_t *)big, key, v)
		if (!json_object_get(c, key))
			return false;
	return true;
}

/* tried, or sure to fail as a tried one did for want of resources */
static bool tried(const struct agent_request *req, const json_t *c)
{
	if (same(c, req->kernel->config))
		return true;
	for (size_t i = 0; i < req->ntraj; i++) {
		const json_t *tc = json_object_get(req->traj[i].candidate, "config");
		if (same(tc, c) || (too_big(&req->traj[i]) && json_is_object(tc) && needs_more(c, tc)))
			return true;
	}
	return false;
}

static int best_try(const struct agent_request *req)
{
	int best = -1;
	double bx = 0;
	for (size_t i = 0; i < req->ntraj; i++)
		if (req->traj[i].verdict && strcmp(req->traj[i].verdict, "pass") == 0 && req->traj[i].speedup > bx &&
		    json_is_object(json_object_get(req->traj[i].candidate, "config"))) {
			bx = req->traj[i].speedup;
			best = (int)i;
		}
	return best;
}

/* a candidate (config stolen) */
static json_t *cand(json_t *config, const char *role, const char *name, const char *what)
{
	char *shape = agent_helion_shape(config);
	char *strategy = xasprintf("%s: %s (%s)", role, what, shape);
	struct agent_candidate ac = { .config = config, .role = role, .strategy = strategy };
	snprintf(ac.name, sizeof ac.name, "%s", name);
	json_t *c = agent_candidate_new(&ac);
	json_decref(config);
	free(strategy);
	free(shape);
	return c;
}

json_t *helion_plan(const struct agent_kernel *k, const char *memory_path, const char *scope, char **why)
{
	char *features = agent_features(k);
	struct memory mem;
	memory_load(&mem, memory_path, features, scope);
	double score[NPRIOR];
	size_t order[NPRIOR];
	for (size_t i = 0; i < NPRIOR; i++) {
		double p = 0.6 - 0.3 * (double)i / (double)(NPRIOR - 1);
		/* by the config a move leads to where memory has it, else by the move */
		json_t *c = helion_apply(prior[i], k->config);
		char *shape = c ? agent_helion_shape(c) : NULL;
		char *key = shape ? xasprintf("=%s", shape) : NULL;
		score[i] = memory_score(&mem, key && memory_get(&mem, key) ? key : prior[i], p);
		free(key);
		free(shape);
		json_decref(c);
	}
	memory_rank(order, score, NPRIOR);
	if (why) {
		int lessons = memory_lessons(&mem);
		*why = lessons ? xasprintf("planner: %d lesson%s from other specs for %s; first: %s", lessons,
					   kopt_plural(lessons), features, prior[order[0]])
			       : xasprintf("planner: the built-in order of Helion config moves (no lessons from other "
					   "specs for %s)", features);
	}
	json_t *plan = json_array();
	for (size_t i = 0; i < NPRIOR; i++)
		json_array_append_new(plan, json_string(prior[order[i]]));
	memory_release(&mem);
	free(features);
	return plan;
}

static const json_t *plan_of(const struct agent_request *req)
{
	return req->ntraj ? json_object_get(req->traj[0].candidate, "plan") : NULL;
}

/* the first move of plan from base not tried yet */
static json_t *descend(const struct agent_request *req, const json_t *plan, const json_t *base, const char *role,
		       const char *from)
{
	size_t i;
	json_t *mv;
	json_array_foreach(plan, i, mv) {
		const char *name = json_string_value(mv);
		json_t *c = name ? helion_apply(name, base) : NULL;
		if (c && !tried(req, c)) {
			char *what = xasprintf("%s from %s", name, from);
			json_t *out = cand(c, role, name, what);
			free(what);
			return out;
		}
		json_decref(c);
	}
	return NULL;
}

int helion_propose(const struct agent_request *req, const char *memory_path, struct agent_reply *reply)
{
	const struct agent_kernel *k = req->kernel;
	if (!agent_helion_config(k->config)) {
		reply->reason = xstrdup("analyst: a Helion kernel without its config: nothing to tune");
		return 0;
	}
	if (req->index == 0) {
		char *ranked = NULL;
		json_t *plan = helion_plan(k, memory_path, req->scope, &ranked);
		const json_t *start = json_object_get(k->profile_row, "helion_start");
		json_t *out = NULL;
		if (agent_helion_config(start) && !same(start, k->config))
			out = cand(json_deep_copy(start), "tuner", "helion-quick", "Helion's quick autotune's config");
		else
			out = descend(req, plan, k->config, "coder", "the kernel's own config");
		if (!out) {
			reply->reason = xstrdup("planner: no Helion config move applies to this kernel's config");
			free(ranked);
			json_decref(plan);
			return 0;
		}
		json_object_set_new(out, "plan", plan);
		json_object_set_new(out, "planning", json_string(ranked));
		json_object_set_new(out, "analysis", json_string("analyst: a Helion kernel: its helion.Config is searched"));
		free(ranked);
		reply->candidate = out;
		return 0;
	}
	int best = best_try(req);
	const json_t *plan = plan_of(req);
	const json_t *base = best >= 0 ? json_object_get(req->traj[best].candidate, "config") : NULL;
	/* from the best so far; while none passed, from the start candidate 0
	 * took, then from the kernel's own */
	if (base && (reply->candidate = descend(req, plan, base, "tuner", "the best so far")))
		return 0;
	if (!base && (reply->candidate = descend(req, plan, k->config, "coder", "the kernel's own config")))
		return 0;
	/* seeded random pairs of moves from the best (or own) config */
	uint64_t st = (req->cfg ? req->cfg->seed : 0) * 1000003u + (uint64_t)req->index;
	const json_t *from = base ? base : k->config;
	for (int attempt = 0; attempt < 64; attempt++) {
		json_t *a = helion_apply(prior[kopt_splitmix64(&st) % NPRIOR], from);
		json_t *c = a ? helion_apply(prior[kopt_splitmix64(&st) % NPRIOR], a) : NULL;
		json_decref(a);
		if (c && !tried(req, c)) {
			reply->candidate = cand(c, "tuner", "random", "two random moves");
			return 0;
		}
		json_decref(c);
	}
	reply->reason = xstrdup("tuner: no untried Helion config near the best one");
	return 0;
}

char *helion_digest(const struct agent_request *req)
{
	int best = best_try(req);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "helion;tried=");
	for (size_t i = 0; i < req->ntraj; i++) {
		char *c = json_dumps(json_object_get(req->traj[i].candidate, "config"), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		/* a failure for want of resources rules configs out (tried) */
		strbuf_addf(&sb, "%s%s%s", i ? "," : "", c ? c : "null", too_big(&req->traj[i]) ? "!" : "");
		free(c);
	}
	char *p = json_dumps(plan_of(req), JSON_COMPACT | JSON_ENCODE_ANY);
	strbuf_addf(&sb, ";plan=%s;best=%d", p ? p : "null", best >= 0 ? req->traj[best].index : -1);
	free(p);
	return strbuf_detach(&sb);
}
