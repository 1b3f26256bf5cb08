/*
 * agents/builtin/plan.c: the built-in analyst and planner (search.c says
 * what each role does): the analyst's diagnosis of a kernel against its
 * bound (agents/roof.c), and the planner's ranking of the strategies, a
 * prior order per kind of kernel re-ranked by the long-term memory
 * (agents/memory.c).
 */
#include <config.h>

#include "../builtin.h"
#include "../features.h"
#include "../memory.h"
#include "../roof.h"
#include "launch.h"
#include "transform.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/util.h"

/*
 * Left alone at AGENT_LEAVE_ALONE of its bound (the copy bandwidth or the
 * FP32 peak, whichever binds): 1/gamma, so below it a kernel can still pass
 * the performance gate without beating its bound, which is not the roof
 * (DESIGN-NOTES.md, "Left alone at 97% of the copy bandwidth, not 90%").
 */

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

/* "memory-bound (0.25 FLOP per byte), 12.3 us at the copy bandwidth";
 * with the DRAM bytes counted and fewer than the arguments', "on the
 * bytes it moved" */
static char *bound_phrase(const struct agent_bound *b)
{
	bool mem = strcmp(b->binds, "memory") == 0;
	char *in = isnan(b->intensity) ? xstrdup("") : xasprintf(" (%.2f FLOP per byte)", b->intensity);
	char *s = xasprintf("%s-bound%s, its bound %.1f us at the %s%s", mem ? "memory" : "compute", in,
			    (mem ? b->mem_ns : b->flop_ns) / 1e3, mem ? "copy bandwidth" : "FP32 peak",
			    mem && b->traffic < 1 ? " on the bytes it moved (the GPU's counters)" : "");
	free(in);
	return s;
}

void builtin_bound(const struct agent_kernel *k, struct agent_bound *b)
{
	const json_t *row = k->profile_row;
	double frac = json_number_value(json_object_get(row, "frac_peak"));
	/* the bound, where the kernel's FLOPs are known (the row's, else
	 * counted in its source) and so are both peaks: memory or compute,
	 * whichever is longer (agents/roof.c); where the GPU's counters
	 * measured its DRAM bytes, the copy bandwidth alone will do */
	*b = (struct agent_bound){ .ns = NAN, .mem_ns = NAN, .flop_ns = NAN, .intensity = NAN, .frac = NAN,
				   .traffic = NAN };
	double flops = json_number_value(json_object_get(row, "flops"));
	if (!(flops > 0))
		flops = agent_flops(k->source, NULL);
	double copy = k->peak_copy_gbps;
	double gbps = json_number_value(json_object_get(row, "achieved_gbps"));
	bool counted = json_number_value(json_object_get(row, "dram_bytes")) > 0;
	if (!(copy > 0) && frac > 0 && gbps > 0)
		copy = gbps / frac;
	if (flops > 0 && copy > 0 && k->peak_fp32_gflops > 0)
		agent_bound(row, flops, copy, k->peak_fp32_gflops, b);
	else if (counted && copy > 0)
		agent_bound(row, 0, copy, 0, b);
}

int agent_builtin_analyze(const struct agent_kernel *k, char **why)
{
	const json_t *row = k->profile_row;
	double frac = json_number_value(json_object_get(row, "frac_peak"));
	double ns = json_number_value(json_object_get(row, "ns_per_call"));
	bool counted = json_number_value(json_object_get(row, "dram_bytes")) > 0;
	struct agent_bound b;
	builtin_bound(k, &b);
	/* FLOPs the time could not hold: the count took per-row lines for
	 * per-element ones; the copy bandwidth alone decides */
	if (b.binds && strcmp(b.binds, "compute") == 0 && b.frac > AGENT_OVERSTATED)
		b.frac = NAN;
	bool mem = b.binds && strcmp(b.binds, "memory") == 0;
	/* more DRAM traffic than its arguments: something is read or
	 * written again, and a launch config will not take that away */
	if (mem && !isnan(b.frac) && b.traffic >= AGENT_REREAD) {
		*why = xasprintf("analyst: moves %.2fx its arguments' bytes (the GPU's counters), %.1f us per call at %.0f%% "
				 "of its bound: a single pass or a fusion first, then launch config",
				 b.traffic, ns / 1e3, b.frac * 100);
		return 0;
	}
	if (!isnan(b.frac) && b.binds && strcmp(b.binds, "measured") != 0 && (!isnan(b.intensity) || counted)) {
		char *bp = bound_phrase(&b);
		/* on counted bytes nothing overstates the traffic: beyond the
		 * measured copy bandwidth is at it */
		bool over = b.frac > AGENT_OVERSTATED && mem && !counted;
		if (over)
			*why = xasprintf("analyst: %.1f us per call; its arguments (%.0f%% of the copy bandwidth) overstate "
					 "what it moves: launch config first", ns / 1e3, b.frac * 100);
		else if (b.frac >= AGENT_LEAVE_ALONE)
			*why = xasprintf("analyst: %s: already at %.0f%% of its bound: left alone", bp, b.frac * 100);
		else
			*why = xasprintf("analyst: %s, %.1f us per call (%.0f%% of its bound): %s", bp, ns / 1e3,
					 b.frac * 100, mem ? "launch config and block shape first"
							   : "fewer operations per element, or its math on tensor cores");
		free(bp);
		return b.frac >= AGENT_LEAVE_ALONE && !over;
	}
	/* without FLOPs: the copy bandwidth alone.
	 * bytes are the kernel's arguments' sizes: a kernel that touches part
	 * of a large buffer (a gather, a split of a fused projection) seems to
	 * beat the copy bandwidth. Its traffic is unknown, not at the roof
	 * (DESIGN-NOTES.md, "Argument bytes are an upper bound on traffic"). */
	if (frac > AGENT_OVERSTATED) {
		*why = xasprintf("analyst: %.1f us per call; its arguments (%.0f%% of the copy bandwidth) overstate what it "
				 "moves: launch config first", ns / 1e3, frac * 100);
		return 0;
	}
	if (frac >= AGENT_LEAVE_ALONE) {
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
	char *features = agent_features(k);
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
		const struct strategy *s = launch_strategy(prior[i]);
		json_t *c = s ? launch_apply(s, k->config) : NULL;
		applies[i] = !s || !s->param[0] || c;
		char *shape = c ? agent_shape(c, k->source) : NULL;
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
	}
	memory_rank(order, score, n < 32 ? n : 32);
	if (why) {
		int lessons = memory_lessons(&mem);
		struct strbuf sb = STRBUF_INIT;
		if (!lessons) {
			strbuf_addf(&sb, "planner: the built-in order (no lessons from other specs for %s)", features);
		} else {
			strbuf_addf(&sb, "planner: %d lesson%s from other specs for %s; first: ", lessons,
				    kopt_plural(lessons), features);
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
