/*
 * agents/builtin/search.c: the built-in agents, the default: offline and
 * deterministic for a seed.
 *
 *   analyst   reads the kernel's profile row: a kernel already at 97% or
 *             more of its bound is left alone (no candidates, and the
 *             reason says so); otherwise a one-line diagnosis that names
 *             the bound and what binds, memory or compute (agents/roof.c).
 *             Without FLOPs or a measured FP32 peak the bound is the copy
 *             bandwidth alone, from the row's frac_peak.
 *   planner   ranks the strategies for this kind of kernel: a prior order
 *             from what pays on Inductor's kernels, re-ranked by the
 *             long-term memory (agents/memory.c) for kernels of the same
 *             feature class. It runs once per kernel, for candidate 0; the
 *             plan travels in candidate 0 and later candidates read it, so a
 *             memory that grows later does not redo cached proposals.
 *   coder     turns a strategy into a candidate: a launch-config edit on the
 *             keys the kernel has (XBLOCK, YBLOCK, R0_BLOCK, num_warps,
 *             num_stages), or a source edit: eviction hints, or a looped
 *             reduction that reads its row twice made persistent (the row
 *             read once, kept in registers; persist.c).
 *   tuner     first, where the kernel was screened (rules/screen.c): the
 *             screen's best launch configs, fastest first, each timed
 *             alone on the kernel's real arguments, each with the source
 *             knobs screened with it (runtime/python/kopt/knobs.py: an
 *             edit named "evict0=first+rstages=2", its text from the
 *             screen; the candidate is named "screen:evict+rstages", so
 *             memory and the report say which knobs won); candidate 0
 *             carries them. After the plan: coordinate descent around the best
 *             passing candidate (each parameter x2 and /2; on its source
 *             where that is an edit), then seeded random jumps.
 *   debugger  after a candidate that did not build (too many resources, a
 *             bad block shape): the same change, halved, once; otherwise
 *             the failure is recorded and the search moves on.
 *
 * A Helion kernel (heuristic "helion") is searched over its helion.Config
 * instead (helion.c).
 *
 * A proposal depends on: the kernel, the plan and the screen's configs
 * (candidate 0's), and in the tuner phase the best passing candidate so
 * far and the set tried.
 * agent_builtin_digest() prints exactly that, for the engine's key.
 */
#include <config.h>

#include "../agent.h"
#include "../memory.h"
#include "helion.h"
#include "persist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"

/*
 * Left alone at this fraction of its bound (the copy bandwidth or the FP32
 * peak, whichever binds): 1/gamma, so below it a kernel can still pass the
 * performance gate without beating its bound, which is not the roof
 * (DESIGN-NOTES.md, "Left alone at 97% of the copy bandwidth, not 90%").
 */
#define LEAVE_ALONE 0.97
#define OVERSTATED 1.05 /* above it, argument bytes are not the traffic */
#define MAX_PERSISTENT_RBLOCK 16384 /* a row of 64 KiB of float32 in registers */

struct strategy {
	const char *name;
	const char *param[2]; /* parameters it moves */
	double factor[2];     /* their factors (0 = set num_stages) */
};

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

/* prior order per heuristic: earlier is tried first */
static const char *const prior_pointwise[] = {
	"x-up", "warps-up", "x-up4", "x-down", "warps-down", "y-up", "y-down", "x-up-warps-up",
	"y-up-x-down", "x-down-warps-down", "stages-up", "evict-first",
};
static const char *const prior_reduction[] = {
	"persistent", "r-down", "warps-down", "r-down-warps-down", "r-down4", "x-up", "r-up", "warps-up",
	"r-up-warps-up", "stages-up", "x-up-warps-up", "evict-first",
};
static const char *const prior_persistent[] = {
	"warps-down", "x-up", "warps-up", "x-down", "x-up-warps-up", "x-down-warps-down", "evict-first",
};

static const struct strategy *strategy_named(const char *name)
{
	for (size_t i = 0; i < NSTRAT; i++)
		if (strcmp(strategies[i].name, name) == 0)
			return &strategies[i];
	return NULL;
}

static const char *const *prior_for(const char *h, size_t *n)
{
	if (h && strcmp(h, "persistent_reduction") == 0) {
		*n = sizeof prior_persistent / sizeof *prior_persistent;
		return prior_persistent;
	}
	if (h && strstr(h, "reduction")) {
		*n = sizeof prior_reduction / sizeof *prior_reduction;
		return prior_reduction;
	}
	*n = sizeof prior_pointwise / sizeof *prior_pointwise;
	return prior_pointwise;
}

/* the ranges a launch config's parameters are kept in: at most 32 warps
 * (1024 threads, a CUDA block's limit), 4 stages, blocks of 8192 */
static int clamp_param(const char *p, double v, int *out)
{
	long x = lround(v);
	if (strcmp(p, "num_warps") == 0) {
		if (x < 1 || x > 32)
			return -1;
	} else if (strcmp(p, "num_stages") == 0) {
		if (x < 1 || x > 4)
			return -1;
	} else {
		if (x < 1 || x > 8192)
			return -1;
	}
	*out = (int)x;
	return 0;
}

/* applies s to base; NULL when it does not apply (a missing key, a bound) */
static json_t *apply(const struct strategy *s, const json_t *base)
{
	if (!s->param[0] || !json_is_object(base))
		return NULL;
	json_t *c = json_deep_copy(base);
	for (int i = 0; i < 2 && s->param[i]; i++) {
		json_t *v = json_object_get(c, s->param[i]);
		int x;
		if (strcmp(s->param[i], "num_stages") == 0) {
			long cur = v ? (long)json_integer_value(v) : 1;
			if (clamp_param("num_stages", (double)(cur + 1), &x) < 0) {
				json_decref(c);
				return NULL;
			}
		} else if (!json_is_integer(v) || clamp_param(s->param[i], (double)json_integer_value(v) * s->factor[i], &x) < 0) {
			json_decref(c);
			return NULL;
		}
		json_object_set_new(c, s->param[i], json_integer(x));
	}
	return c;
}

static const char *const keys[] = { "XBLOCK", "YBLOCK", "R0_BLOCK", "num_warps", "num_stages" };

/* "XBLOCK=2 R0_BLOCK=1024 num_warps=8 num_stages=1", and maxnreg where
 * the config sets it */
static void config_text(struct strbuf *sb, const json_t *c)
{
	int first = 1;
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		json_t *v = json_object_get(c, keys[i]);
		if (!v)
			continue;
		strbuf_addf(sb, "%s%s=%lld", first ? "" : " ", keys[i], (long long)json_integer_value(v));
		first = 0;
	}
	if (json_is_integer(json_object_get(c, "maxnreg")))
		strbuf_addf(sb, "%smaxnreg=%lld", first ? "" : " ",
			    (long long)json_integer_value(json_object_get(c, "maxnreg")));
}

static int same_config(const json_t *a, const json_t *b)
{
	if (!a || !b)
		return a == b;
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		json_t *x = json_object_get(a, keys[i]), *y = json_object_get(b, keys[i]);
		long long vx = x ? json_integer_value(x) : (strcmp(keys[i], "num_stages") == 0 ? 1 : -1);
		long long vy = y ? json_integer_value(y) : (strcmp(keys[i], "num_stages") == 0 ? 1 : -1);
		if (vx != vy)
			return 0;
	}
	return 1;
}

static bool five_key(const char *key)
{
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

/* same_config, and every other key alike: a screened config may set keys
 * beyond the five (R1_BLOCK) */
static int config_equal(const json_t *a, const json_t *b)
{
	if (!json_is_object(a) || !json_is_object(b) || !same_config(a, b))
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

/* a reduction's length: Inductor writes it into the kernel as
 * "r0_numel = N" (a constant for static shapes); 0 when not found */
static long long reduction_numel(const char *src)
{
	const char *p = src ? strstr(src, "r0_numel = ") : NULL;
	if (!p)
		return 0;
	char *end;
	long long n = strtoll(p + 11, &end, 10);
	return end > p + 11 && (*end == '\n' || *end == '\r') ? n : 0;
}

/*
 * The feature class that long-term memory files a kernel's lessons under:
 * heuristic, looped or flat, the reduction's length (bucket of 4x, where
 * the source gives it) and the bytes (bucket of 4x). Lessons do not carry
 * across reduction lengths (DESIGN-NOTES.md, "Lessons are filed by the
 * reduction's length too"). A Helion kernel's: "helion", its number of
 * block sizes and the bytes ("helion/2d/b28").
 */
char *agent_builtin_features(const struct agent_kernel *k)
{
	double bytes = json_number_value(json_object_get(k->profile_row, "bytes"));
	int b = bytes > 0 ? (int)floor(log2(bytes)) : 0;
	const json_t *c = k->config;
	/* a Helion kernel: by how many tiled dimensions its config has */
	if (helion_is_config(c))
		return xasprintf("helion/%zud/b%d", json_array_size(json_object_get(c, "block_sizes")), b / 2 * 2);
	json_t *r = json_object_get(c, "R0_BLOCK");
	long long rn = reduction_numel(k->source);
	char rbuf[24] = "";
	if (rn > 0)
		snprintf(rbuf, sizeof rbuf, "/r%d", (int)floor(log2((double)rn)) / 2 * 2);
	return xasprintf("%s/%s%s/b%d", k->heuristic ? k->heuristic : "unknown", r ? "looped" : "flat", rbuf,
			 b / 2 * 2);
}

static bool is_helion(const struct agent_kernel *k)
{
	return k->heuristic && strcmp(k->heuristic, "helion") == 0;
}

char *agent_builtin_shape(const json_t *config, const char *source)
{
	if (helion_is_config(config))
		return helion_shape(config);
	long long rn = reduction_numel(source);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		json_t *v = json_object_get(config, keys[i]);
		if (!json_is_integer(v) && strcmp(keys[i], "num_stages") != 0)
			continue;
		long long x = v ? json_integer_value(v) : 1;
		strbuf_addf(&sb, "%s%s=", sb.len ? " " : "", keys[i]);
		if (strcmp(keys[i], "R0_BLOCK") == 0 && rn > 0 && x > 0)
			strbuf_addf(&sb, x >= rn ? "1" : "1/%lld", rn / x);
		else
			strbuf_addf(&sb, "%lld", x);
	}
	return strbuf_detach(&sb);
}

/* "memory-bound (0.25 FLOP per byte), 12.3 us at the copy bandwidth" */
static char *bound_phrase(const struct agent_bound *b)
{
	bool mem = strcmp(b->binds, "memory") == 0;
	return xasprintf("%s-bound (%.2f FLOP per byte), its bound %.1f us at the %s", mem ? "memory" : "compute",
			 b->intensity, (mem ? b->mem_ns : b->flop_ns) / 1e3, mem ? "copy bandwidth" : "FP32 peak");
}

int agent_builtin_analyze(const struct agent_kernel *k, char **why)
{
	const json_t *row = k->profile_row;
	double frac = json_number_value(json_object_get(row, "frac_peak"));
	double ns = json_number_value(json_object_get(row, "ns_per_call"));
	/* the bound, where the kernel's FLOPs are known (the row's, else
	 * counted in its source) and so are both peaks: memory or compute,
	 * whichever is longer (agents/roof.c) */
	struct agent_bound b = { .frac = NAN };
	double flops = json_number_value(json_object_get(row, "flops"));
	if (!(flops > 0))
		flops = agent_flops(k->source, NULL);
	double copy = k->peak_copy_gbps;
	double gbps = json_number_value(json_object_get(row, "achieved_gbps"));
	if (!(copy > 0) && frac > 0 && gbps > 0)
		copy = gbps / frac;
	if (flops > 0 && copy > 0 && k->peak_fp32_gflops > 0)
		agent_bound(row, flops, copy, k->peak_fp32_gflops, &b);
	/* FLOPs the time could not hold: the count took per-row lines for
	 * per-element ones; the copy bandwidth alone decides */
	if (b.binds && strcmp(b.binds, "compute") == 0 && b.frac > OVERSTATED)
		b.frac = NAN;
	if (!isnan(b.frac) && b.binds && strcmp(b.binds, "measured") != 0 && !isnan(b.intensity)) {
		char *bp = bound_phrase(&b);
		if (b.frac > OVERSTATED && strcmp(b.binds, "memory") == 0)
			*why = xasprintf("analyst: %.1f us per call; its arguments (%.0f%% of the copy bandwidth) overstate "
					 "what it moves: launch config first", ns / 1e3, b.frac * 100);
		else if (b.frac >= LEAVE_ALONE)
			*why = xasprintf("analyst: %s: already at %.0f%% of its bound: left alone", bp, b.frac * 100);
		else
			*why = xasprintf("analyst: %s, %.1f us per call (%.0f%% of its bound): %s", bp, ns / 1e3,
					 b.frac * 100, strcmp(b.binds, "memory") == 0
						 ? "launch config and block shape first"
						 : "fewer operations per element, or its math on tensor cores");
		free(bp);
		return b.frac >= LEAVE_ALONE && !(b.frac > OVERSTATED && strcmp(b.binds, "memory") == 0);
	}
	/* without FLOPs: the copy bandwidth alone.
	 * bytes are the kernel's arguments' sizes: a kernel that touches part
	 * of a large buffer (a gather, a split of a fused projection) seems to
	 * beat the copy bandwidth. Its traffic is unknown, not at the roof
	 * (DESIGN-NOTES.md, "Argument bytes are an upper bound on traffic"). */
	if (frac > OVERSTATED) {
		*why = xasprintf("analyst: %.1f us per call; its arguments (%.0f%% of the copy bandwidth) overstate what it "
				 "moves: launch config first", ns / 1e3, frac * 100);
		return 0;
	}
	if (frac >= LEAVE_ALONE) {
		*why = xasprintf("analyst: memory-bound and already at %.0f%% of the copy bandwidth: left alone", frac * 100);
		return 1;
	}
	if (k->heuristic && strcmp(k->heuristic, "jit") == 0 && !k->source) {
		*why = xstrdup("analyst: a standalone kernel without its source: nothing to rewrite");
		return 1;
	}
	if (frac > 0)
		*why = xasprintf("analyst: memory-bound at %.0f%% of the copy bandwidth, %.1f us per call: launch config and block shape first",
				 frac * 100, ns / 1e3);
	else
		*why = xasprintf("analyst: %.1f us per call; no byte count: launch config first", ns / 1e3);
	return 0;
}

/* one ranked strategy's reason, for the planner's sentence */
static void plan_reason(struct strbuf *sb, const char *name, const char *shape, const struct mem_stat *st)
{
	strbuf_addstr(sb, name);
	if (!st) {
		strbuf_addstr(sb, " (no lesson: the built-in order)");
		return;
	}
	if (shape)
		strbuf_addf(sb, " (the config it leads to, %s, passed %d of %d", shape, st->wins, st->tries);
	else
		strbuf_addf(sb, " (passed %d of %d", st->wins, st->tries);
	if (st->wins)
		strbuf_addf(sb, ", %.3fx on average", exp(st->gain / st->wins));
	strbuf_addch(sb, ')');
}

/*
 * The planner: strategies in ranked order, as a JSON array of names; *why
 * (when why is not NULL) says what ranked the first three that apply.
 */
json_t *agent_builtin_plan(const struct agent_kernel *k, const char *memory_path, const char *scope, char **why)
{
	size_t n;
	const char *const *prior = prior_for(k->heuristic, &n);
	char *features = agent_builtin_features(k);
	struct memory mem;
	memory_load(&mem, memory_path, features, scope);
	double score[32];
	size_t order[32];
	char *shapes[32] = { 0 };
	const struct mem_stat *basis[32] = { 0 };
	bool applies[32];
	for (size_t i = 0; i < n && i < 32; i++) {
		/* prior: from 0.6 for the first down to 0.3 for the last */
		double p = 0.6 - 0.3 * (double)i / (double)(n > 1 ? n - 1 : 1);
		/* a config move is ranked by what the config it leads to did on
		 * other kernels of the class, where memory has that shape; else
		 * by what the move did: moves are relative, shapes are not
		 * (DESIGN-NOTES.md, "Lessons keep the config a move led to"). */
		const struct strategy *s = strategy_named(prior[i]);
		json_t *c = s ? apply(s, k->config) : NULL;
		applies[i] = !s || !s->param[0] || c;
		char *shape = c ? agent_builtin_shape(c, k->source) : NULL;
		char *key = shape ? xasprintf("=%s", shape) : NULL;
		if (key && memory_get(&mem, key)) {
			basis[i] = memory_get(&mem, key);
			shapes[i] = shape;
			shape = NULL;
		} else {
			basis[i] = memory_get(&mem, prior[i]);
		}
		score[i] = memory_score(&mem, shapes[i] ? key : prior[i], p);
		free(key);
		free(shape);
		json_decref(c);
		order[i] = i;
	}
	/* stable insertion sort by score, descending */
	for (size_t i = 1; i < n; i++) {
		size_t o = order[i];
		size_t j = i;
		while (j > 0 && score[order[j - 1]] < score[o]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = o;
	}
	if (why) {
		int lessons = 0;
		for (size_t i = 0; i < mem.n; i++)
			lessons += mem.stats[i].strategy[0] != '=' ? mem.stats[i].tries : 0;
		struct strbuf sb = STRBUF_INIT;
		if (!lessons) {
			strbuf_addf(&sb, "planner: the built-in order (no lessons from other specs for %s)", features);
		} else {
			strbuf_addf(&sb, "planner: %d lesson%s from other specs for %s; first: ", lessons,
				    lessons == 1 ? "" : "s", features);
			for (size_t i = 0, shown = 0; i < n && shown < 3; i++) {
				size_t o = order[i];
				if (!applies[o])
					continue;
				if (shown++)
					strbuf_addstr(&sb, ", ");
				plan_reason(&sb, prior[o], shapes[o], basis[o]);
			}
		}
		*why = strbuf_detach(&sb);
	}
	for (size_t i = 0; i < n && i < 32; i++)
		free(shapes[i]);
	free(features);
	json_t *plan = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(plan, json_string(prior[order[i]]));
	memory_release(&mem);
	return plan;
}

static int tried(const struct agent_request *req, const json_t *cfg)
{
	if (same_config(cfg, req->kernel->config))
		return 1;
	for (size_t i = 0; i < req->ntraj; i++) {
		const json_t *c = json_object_get(req->traj[i].candidate, "config");
		const json_t *src = json_object_get(req->traj[i].candidate, "source");
		if (c && json_is_null(src) && same_config(c, cfg))
			return 1;
	}
	return 0;
}

/* tried(), for a candidate with a source edit: the same source and config */
static int tried_source(const struct agent_request *req, const json_t *cfg, const char *src)
{
	if (!src)
		return tried(req, cfg);
	for (size_t i = 0; i < req->ntraj; i++) {
		const json_t *c = json_object_get(req->traj[i].candidate, "config");
		const char *s = json_string_value(json_object_get(req->traj[i].candidate, "source"));
		if (c && s && strcmp(s, src) == 0 && same_config(c, cfg))
			return 1;
	}
	return 0;
}

static const json_t *plan_of(const struct agent_request *req)
{
	return req->ntraj ? json_object_get(req->traj[0].candidate, "plan") : NULL;
}

/* best passing candidate (by kernel speedup), or -1 */
static int best_try(const struct agent_request *req)
{
	int best = -1;
	double bx = 0;
	for (size_t i = 0; i < req->ntraj; i++)
		if (req->traj[i].verdict && strcmp(req->traj[i].verdict, "pass") == 0 && req->traj[i].speedup > bx) {
			bx = req->traj[i].speedup;
			best = (int)i;
		}
	return best;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* a candidate of strategy name (config stolen), source made by edit (or
 * NULL): "ROLE: WHAT (CONFIG)" for people */
static json_t *candidate_edit(json_t *config, const char *source, const char *edit, const char *role,
			      const char *name, const char *what, const json_t *cfgtext_of)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s: %s", role, what);
	if (cfgtext_of) {
		strbuf_addstr(&sb, " (");
		config_text(&sb, cfgtext_of);
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

static json_t *candidate(json_t *config, const char *source, const char *role, const char *name, const char *what,
			 const json_t *cfgtext_of)
{
	return candidate_edit(config, source, NULL, role, name, what, cfgtext_of);
}

/* ---- the screen's configs (rules/screen.c) ---- */

/* the screen's configs, fastest first: from the screen for candidate 0,
 * from candidate 0 afterwards (it carries them); NULL when none. *edits:
 * beside them, each config's source knobs, {"edit", "source"} or null,
 * where any has some (candidate 0 carries them as "screen_edits"); else
 * NULL */
static json_t *screen_configs(const struct agent_request *req, json_t **edits)
{
	*edits = NULL;
	if (req->index > 0) {
		if (!req->ntraj)
			return NULL;
		*edits = json_incref(json_object_get(req->traj[0].candidate, "screen_edits"));
		return json_incref(json_object_get(req->traj[0].candidate, "screen"));
	}
	if (!json_array_size(req->screen))
		return NULL;
	json_t *out = json_array(), *ed = json_array();
	bool any = false;
	size_t i;
	json_t *e;
	json_array_foreach(req->screen, i, e) {
		if (!json_is_object(json_object_get(e, "config")))
			continue;
		json_array_append(out, json_object_get(e, "config"));
		const char *edit = json_string_value(json_object_get(e, "edit"));
		const char *src = json_string_value(json_object_get(e, "source"));
		if (edit && *edit && src) {
			json_array_append_new(ed, json_pack("{s:s, s:s}", "edit", edit, "source", src));
			any = true;
		} else {
			json_array_append_new(ed, json_null());
		}
	}
	if (any)
		*edits = ed;
	else
		json_decref(ed);
	return out;
}

/* the kernel's own config, or one proposed already: as a config alone, or
 * with the same source (src, NULL for Inductor's) */
static bool proposed(const struct agent_request *req, const json_t *c, const char *src)
{
	if (!src && config_equal(c, req->kernel->config))
		return true;
	for (size_t i = 0; i < req->ntraj; i++) {
		const json_t *tc = json_object_get(req->traj[i].candidate, "config");
		const char *ts = json_string_value(json_object_get(req->traj[i].candidate, "source"));
		if ((src ? ts && strcmp(ts, src) == 0 : !ts) && config_equal(tc, c))
			return true;
	}
	return false;
}

/* "screen:evict+rstages": the kinds of knob an edit "evict0=first+evict2=none+rstages=2" sets;
 * a GEMM template's BLOCK_M, BLOCK_N, BLOCK_K and GROUP_M are of kind "tile" */
static void edit_kinds(struct strbuf *sb, const char *edit)
{
	strbuf_addstr(sb, "screen:");
	size_t start = sb->len;
	for (const char *p = edit; *p;) {
		size_t n = strcspn(p, "+"), k = 0;
		while (k < n && p[k] >= 'a' && p[k] <= 'z')
			k++;
		const char *kind = p;
		if (!k && (strncmp(p, "BLOCK_", 6) == 0 || strncmp(p, "GROUP_", 6) == 0)) {
			kind = "tile";
			k = 4;
		}
		bool seen = false;
		for (const char *q = sb->buf + start; q < sb->buf + sb->len && !seen;) {
			size_t m = strcspn(q, "+");
			seen = m == k && strncmp(q, kind, k) == 0;
			q += m + (q[m] == '+');
		}
		if (!seen && k)
			strbuf_addf(sb, "%s%.*s", sb->len > start ? "+" : "", (int)k, kind);
		p += n + (p[n] == '+');
	}
}

/* the first of the screen's configs (with its source knobs) not proposed
 * yet; *reason (when reason is not NULL) says its time alone, from the
 * screen */
static json_t *screen_next(const struct agent_request *req, const json_t *configs, const json_t *edits,
			   char **reason)
{
	size_t i;
	json_t *c;
	json_array_foreach(configs, i, c) {
		const json_t *ed = json_array_get(edits, i);
		const char *edit = json_string_value(json_object_get(ed, "edit"));
		const char *src = edit ? json_string_value(json_object_get(ed, "source")) : NULL;
		if (!src)
			edit = NULL;
		if (!json_is_object(c) || proposed(req, c, src))
			continue;
		if (reason) {
			struct strbuf sb = STRBUF_INIT;
			strbuf_addstr(&sb, "screen: ");
			if (edit)
				strbuf_addf(&sb, "%s ", edit);
			config_text(&sb, c);
			size_t j;
			json_t *e;
			json_array_foreach(req->screen, j, e) {
				const char *ee = json_string_value(json_object_get(e, "edit"));
				if (config_equal(json_object_get(e, "config"), c) &&
				    (edit ? ee && strcmp(ee, edit) == 0 : !ee || !*ee) &&
				    json_is_number(json_object_get(e, "speedup"))) {
					strbuf_addf(&sb, " (%.3fx alone)", json_number_value(json_object_get(e, "speedup")));
					break;
				}
			}
			*reason = strbuf_detach(&sb);
		}
		if (!edit)
			return candidate(json_deep_copy(c), NULL, "tuner", "screen", "screen", c);
		struct strbuf name = STRBUF_INIT;
		edit_kinds(&name, edit);
		char *what = xasprintf("screen %s", edit);
		json_t *out = candidate_edit(json_deep_copy(c), src, edit, "tuner", name.buf, what, c);
		free(what);
		strbuf_release(&name);
		return out;
	}
	return NULL;
}

/* evict-first: the loads Inductor marks evict_last become evict_first */
static char *evict_edit(const char *src)
{
	if (!src || !strstr(src, "eviction_policy='evict_last'"))
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	const char *p = src, *q;
	while ((q = strstr(p, "eviction_policy='evict_last'"))) {
		strbuf_add(&sb, p, (size_t)(q - p));
		strbuf_addstr(&sb, "eviction_policy='evict_first'");
		p = q + strlen("eviction_policy='evict_last'");
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb);
}

static int build_failed(const struct agent_try *t)
{
	return t && t->gate && strcmp(t->gate, "static") == 0 && t->reason && strstr(t->reason, "does not build") &&
	       !json_object_get(t->candidate, "repair_of");
}

/* debugger: the last candidate did not build; its config, halved, once */
static json_t *repair(const struct agent_request *req)
{
	const struct agent_try *last = req->ntraj ? &req->traj[req->ntraj - 1] : NULL;
	if (!build_failed(last))
		return NULL;
	const json_t *lc = json_object_get(last->candidate, "config");
	if (!json_is_object(lc))
		return NULL;
	json_t *c = json_deep_copy(lc);
	for (size_t i = 0; i < 3; i++) {
		json_t *v = json_object_get(c, keys[i]);
		if (json_is_integer(v) && json_integer_value(v) > 1)
			json_object_set_new(c, keys[i], json_integer(json_integer_value(v) / 2));
	}
	json_object_set_new(c, "num_stages", json_integer(1));
	if (tried(req, c)) {
		json_decref(c);
		return NULL;
	}
	json_t *out = candidate(c, NULL, "debugger", "repair", "repair: halved blocks, one stage", c);
	json_object_set_new(out, "repair_of", json_integer(last->index));
	return out;
}

/* whether c is the coder's candidate of strategy name */
static bool coder_made(const json_t *c, const char *name)
{
	struct agent_candidate ac;
	return agent_candidate_read(c, &ac) == 0 && ac.role && strcmp(ac.role, "coder") == 0 &&
	       strcmp(ac.name, name) == 0;
}

static int strategy_used(const struct agent_request *req, const char *name)
{
	for (size_t t = 0; t < req->ntraj; t++)
		if (coder_made(req->traj[t].candidate, name))
			return 1;
	return 0;
}

/* the next strategy of the plan not yet used that applies; best = the traj
 * index whose config a source edit rides on, or -1 */
static json_t *plan_next(const struct agent_request *req, const json_t *plan, int best)
{
	const struct agent_kernel *k = req->kernel;
	for (size_t i = 0; plan && i < json_array_size(plan); i++) {
		const struct strategy *s = strategy_named(json_string_value(json_array_get(plan, i)));
		if (!s || strategy_used(req, s->name))
			continue;
		if (s->param[0]) {
			json_t *c = apply(s, k->config);
			if (c && !tried(req, c))
				return candidate(c, NULL, "coder", s->name, s->name, c);
			json_decref(c);
			continue;
		}
		if (strcmp(s->name, "persistent") == 0) {
			int rb = 0;
			char *ps = persist_edit(k->source, MAX_PERSISTENT_RBLOCK, &rb);
			if (!ps)
				continue;
			json_t *c = json_is_object(k->config) ? json_deep_copy(k->config) : json_object();
			json_object_set_new(c, "XBLOCK", json_integer(1));
			json_object_set_new(c, "R0_BLOCK", json_integer(rb));
			json_object_set_new(c, "num_warps", json_integer(rb >= 8192 ? 16 : rb >= 2048 ? 8 : 4));
			json_object_set_new(c, "num_stages", json_integer(1));
			json_t *out = candidate(c, ps, "coder", s->name, s->name, c);
			free(ps);
			return out;
		}
		char *src = evict_edit(k->source);
		if (!src)
			continue;
		const json_t *bc = best >= 0 ? json_object_get(req->traj[best].candidate, "config") : NULL;
		json_t *out = candidate(json_is_object(bc) ? json_deep_copy(bc) : NULL, src, "coder", s->name, s->name,
					json_is_object(bc) ? bc : NULL);
		free(src);
		return out;
	}
	return NULL;
}

/*
 * What candidate i > 0 depends on, and nothing more: the plan and the
 * candidates so far (not their verdicts); whether the last did not build
 * (the debugger); the best passing candidate only where that is used (a
 * source edit rides on its config; the tuner searches around it). So a new
 * gamma that flips no "best" reruns no proposal.
 */
/* whether the best passing candidate is a persistent edit */
static bool persistent_best(const struct agent_request *req, int best)
{
	if (best < 0)
		return false;
	struct agent_candidate c;
	return agent_candidate_read(req->traj[best].candidate, &c) == 0 && c.source &&
	       strcmp(c.name, "persistent") == 0;
}

/* tuner: coordinate descent around the best passing config, on the best's
 * source where that is an edit (a persistent kernel keeps its block: its
 * edited branch needs the whole row, and more rows per program would only
 * add registers); NULL when every move was tried */
static json_t *descent(const struct agent_request *req, int best)
{
	const struct agent_kernel *k = req->kernel;
	const json_t *base = best >= 0 ? json_object_get(req->traj[best].candidate, "config") : NULL;
	if (!json_is_object(base))
		base = k->config;
	const json_t *bsrc = best >= 0 ? json_object_get(req->traj[best].candidate, "source") : NULL;
	const char *src = json_is_string(bsrc) ? json_string_value(bsrc) : NULL;
	/* a screened knob's edit goes on with its text (the deployment names it) */
	const char *edit = src ? json_string_value(json_object_get(req->traj[best].candidate, "edit")) : NULL;
	bool persistent = persistent_best(req, best);
	static const char *const moves[] = { "x-up", "x-down", "r-up", "r-down", "y-up", "y-down", "warps-up", "warps-down", "stages-up" };
	for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
		if (persistent && moves[i][0] != 'w' && moves[i][0] != 's')
			continue;
		json_t *c = apply(strategy_named(moves[i]), base);
		if (c && !tried_source(req, c, src)) {
			char *what = xasprintf("descent %s from %s", moves[i], best >= 0 ? "the best so far" : "the baseline");
			json_t *out = candidate_edit(c, src, edit, "tuner", "descent", what, c);
			free(what);
			return out;
		}
		json_decref(c);
	}
	return NULL;
}

json_t *agent_builtin_descent(const struct agent_request *req)
{
	return descent(req, best_try(req));
}

char *agent_builtin_digest(const struct agent_request *req)
{
	if (req->index == 0)
		return xstrdup("");
	if (is_helion(req->kernel))
		return helion_digest(req);
	const json_t *plan = plan_of(req);
	int best = best_try(req);
	struct strbuf sb = STRBUF_INIT;
	char *text = plan ? json_dumps(plan, JSON_COMPACT) : xstrdup("null");
	strbuf_addf(&sb, "plan=%s;tried=", text);
	free(text);
	for (size_t i = 0; i < req->ntraj; i++) {
		char *c = json_dumps(req->traj[i].candidate, JSON_COMPACT | JSON_SORT_KEYS);
		strbuf_addf(&sb, "%s%s", i ? "," : "", c ? c : "null");
		free(c);
	}
	json_t *r = repair(req);
	if (r) {
		strbuf_addstr(&sb, ";repair");
		json_decref(r);
		return strbuf_detach(&sb);
	}
	/* the screen's configs: what candidate 0 carries and what was tried */
	json_t *se;
	json_t *sc = screen_configs(req, &se);
	r = screen_next(req, sc, se, NULL);
	json_decref(sc);
	json_decref(se);
	if (r) {
		strbuf_addstr(&sb, ";screen");
		json_decref(r);
		return strbuf_detach(&sb);
	}
	json_t *next = plan_next(req, plan, -1);
	int rides = next && !json_is_null(json_object_get(next, "source")) &&
		    !coder_made(next, "persistent"); /* its config is its own */
	json_decref(next);
	if (!next || rides || persistent_best(req, best))
		strbuf_addf(&sb, ";best=%d", best >= 0 ? req->traj[best].index : -1);
	return strbuf_detach(&sb);
}

int agent_builtin_propose(const struct agent_request *req, const char *memory_path, struct agent_reply *reply)
{
	const struct agent_kernel *k = req->kernel;
	char *why = NULL;
	if (is_helion(k))
		return helion_propose(req, memory_path, reply);
	if (req->index == 0 && agent_builtin_analyze(k, &why)) {
		reply->reason = why;
		return 0;
	}
	if (req->index == 0) {
		/* plan; then the screen's fastest config, else the first strategy
		 * that applies */
		char *ranked = NULL;
		json_t *plan = agent_builtin_plan(k, memory_path, req->scope, &ranked);
		json_t *se;
		json_t *sc = screen_configs(req, &se);
		json_t *out = screen_next(req, sc, se, &reply->reason);
		if (out) {
			json_object_set(out, "screen", sc);
			if (se)
				json_object_set(out, "screen_edits", se);
		} else {
			out = plan_next(req, plan, -1);
		}
		json_decref(sc);
		json_decref(se);
		if (!out) {
			reply->reason = xasprintf("%s; planner: no strategy applies to this kernel's config", why);
			free(why);
			free(ranked);
			json_decref(plan);
			return 0;
		}
		json_object_set_new(out, "plan", plan);
		json_object_set_new(out, "planning", json_string(ranked));
		json_object_set_new(out, "analysis", json_string(why));
		free(ranked);
		free(why);
		reply->candidate = out;
		return 0;
	}

	int best = best_try(req);
	if ((reply->candidate = repair(req)))
		return 0;
	json_t *se;
	json_t *sc = screen_configs(req, &se);
	reply->candidate = screen_next(req, sc, se, &reply->reason);
	json_decref(sc);
	json_decref(se);
	if (reply->candidate)
		return 0;
	/* a persistent edit that passed: its warps and stages before the rest
	 * of the plan, whose config moves run on Inductor's looped source */
	if (persistent_best(req, best) && (reply->candidate = descent(req, best)))
		return 0;
	if ((reply->candidate = plan_next(req, plan_of(req), best)))
		return 0;
	if ((reply->candidate = descent(req, best)))
		return 0;
	/* tuner: seeded random jumps over the grid of the kernel's own keys */
	uint64_t st = req->cfg ? req->cfg->seed * 1000003u + (uint64_t)req->index : (uint64_t)req->index;
	for (int attempt = 0; attempt < 64 && json_is_object(k->config); attempt++) {
		json_t *c = json_deep_copy(k->config);
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
			json_t *v = json_object_get(c, keys[i]);
			if (!json_is_integer(v))
				continue;
			int x;
			if (strcmp(keys[i], "num_stages") == 0)
				x = 1 + (int)(splitmix(&st) % 3);
			else if (strcmp(keys[i], "num_warps") == 0)
				x = 1 << (1 + (int)(splitmix(&st) % 4));
			else {
				long cur = (long)json_integer_value(v);
				int shift = (int)(splitmix(&st) % 5) - 2;
				if (clamp_param(keys[i], shift >= 0 ? cur << shift : cur >> -shift, &x) < 0)
					x = (int)cur;
			}
			json_object_set_new(c, keys[i], json_integer(x));
		}
		if (!tried(req, c)) {
			reply->candidate = candidate(c, NULL, "tuner", "random", "random jump", c);
			return 0;
		}
		json_decref(c);
	}
	reply->reason = xstrdup("tuner: no untried config near the best one");
	return 0;
}
