/*
 * tests/unit/helion_agents_test.c: the built-in agents on a Helion kernel
 * (agents/builtin/helion.c), with no worker: each move changes the keys it
 * names and no other, moves out of range do not apply, the shape the
 * long-term memory files, candidate 0 from the quick autotune's config or
 * from the plan, no candidate twice, none that asks as much of the SM as
 * a config that ran out of resources (with num_stages given and absent),
 * and no candidate for a kernel whose config is not a helion.Config. The
 * planner's order of moves: built in, then ranked by other specs' lessons
 * (a move that won comes first, one that lost sinks to the last prior's
 * rank), never by the asking spec's own.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agents/agent.h"
#include "../../agents/features.h"
#include "../../agents/builtin/helion.h"
#include "../../agents/memory.h"
#include "../../common/util.h"
#include "../fixture.h"
#include "../tap.h"

static json_t *J(const char *t)
{
	json_t *j = json_loads(t, 0, NULL);
	if (!j) {
		fprintf(stderr, "bad JSON %s\n", t);
		exit(2);
	}
	return j;
}

/* whether move on base gives want (NULL: does not apply) */
static int moves_to(const char *move, const char *base, const char *want)
{
	json_t *b = J(base), *got = helion_apply(move, b);
	json_t *w = want ? J(want) : NULL;
	int ok = want ? got && json_equal(got, w) : got == NULL;
	if (!ok) {
		char *t = got ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		printf("# %s on %s gave %s\n", move, base, t ? t : "NULL");
		free(t);
	}
	json_decref(b);
	json_decref(got);
	json_decref(w);
	return ok;
}

/* the test's own reading of "asks at least as much": blocks and stages no
 * smaller (an absent num_stages is 1, Helion's default), everything else
 * but the warps equal */
static bool blocks_no_smaller(const json_t *c, const json_t *big)
{
	const json_t *cb = json_object_get(c, "block_sizes"), *bb = json_object_get(big, "block_sizes");
	for (size_t i = 0; i < json_array_size(bb); i++)
		if (json_integer_value(json_array_get(cb, i)) < json_integer_value(json_array_get(bb, i)))
			return false;
	return true;
}

/* the rest of it: stages no fewer, every other key but the warps equal */
static bool rest_as_much(const json_t *c, const json_t *big)
{
	json_int_t cs = json_integer_value(json_object_get(c, "num_stages"));
	json_int_t bs = json_integer_value(json_object_get(big, "num_stages"));
	if ((cs ? cs : 1) < (bs ? bs : 1))
		return false;
	json_t *a = json_deep_copy(c), *b = json_deep_copy(big);
	const char *const keys[] = { "block_sizes", "num_stages", "num_warps" };
	for (int i = 0; i < 3; i++) {
		json_object_del(a, keys[i]);
		json_object_del(b, keys[i]);
	}
	bool eq = json_equal(a, b);
	json_decref(a);
	json_decref(b);
	return eq;
}

/* c's first block smaller than big's, its others no smaller */
static bool only_first_smaller(const json_t *c, const json_t *big)
{
	const json_t *cb = json_object_get(c, "block_sizes"), *bb = json_object_get(big, "block_sizes");
	if (!json_array_size(bb) || json_array_size(cb) != json_array_size(bb) ||
	    json_integer_value(json_array_get(cb, 0)) >= json_integer_value(json_array_get(bb, 0)))
		return false;
	for (size_t i = 1; i < json_array_size(bb); i++)
		if (json_integer_value(json_array_get(cb, i)) < json_integer_value(json_array_get(bb, i)))
			return false;
	return true;
}

static bool needs_more(const json_t *c, const json_t *big)
{
	return blocks_no_smaller(c, big) && rest_as_much(c, big);
}

/* each move's result to the value at its range's ends, and the moves that
 * do not apply: a compound move needs both of its halves to apply */
static void moves_at_bounds(void)
{
	TAP_OK(moves_to("b0-down-warps-down", "{\"block_sizes\":[64,32],\"num_warps\":4}",
			"{\"block_sizes\":[32,32],\"num_warps\":2}") &&
	       moves_to("b0-down-warps-down", "{\"block_sizes\":[1,32],\"num_warps\":4}", NULL) &&
	       moves_to("b0-down-warps-down", "{\"block_sizes\":[64,32],\"num_warps\":1}", NULL) &&
	       moves_to("b0-down-warps-down", "{\"block_sizes\":[2],\"num_warps\":2}", "{\"block_sizes\":[1],\"num_warps\":1}"),
	       "b0-down-warps-down halves both, and does not apply where either would leave its range");
	TAP_OK(moves_to("b0-up-warps-up", "{\"block_sizes\":[65536],\"num_warps\":4}", NULL) &&
	       moves_to("b0-up-warps-up", "{\"block_sizes\":[64],\"num_warps\":32}", NULL) &&
	       moves_to("b0-up-warps-up", "{\"block_sizes\":[32768],\"num_warps\":16}", "{\"block_sizes\":[65536],\"num_warps\":32}"),
	       "b0-up-warps-up: both ends reached together, neither passed");
	TAP_OK(moves_to("warps-up", "{\"block_sizes\":[1],\"num_warps\":16}", "{\"block_sizes\":[1],\"num_warps\":32}") &&
	       moves_to("warps-down", "{\"block_sizes\":[1],\"num_warps\":2}", "{\"block_sizes\":[1],\"num_warps\":1}") &&
	       moves_to("warps-down", "{\"block_sizes\":[1],\"num_warps\":1}", NULL) &&
	       moves_to("warps-down", "{\"block_sizes\":[1],\"num_warps\":3}", NULL) &&
	       moves_to("warps-up", "{\"block_sizes\":[1]}", NULL) &&
	       moves_to("warps-up", "{\"block_sizes\":[1],\"num_warps\":\"4\"}", NULL) &&
	       moves_to("warps-up", "{\"block_sizes\":[1],\"num_warps\":1}", "{\"block_sizes\":[1],\"num_warps\":2}") &&
	       moves_to("warps-up", "{\"block_sizes\":[1],\"num_warps\":0}", NULL) &&
	       moves_to("warps-down", "{\"block_sizes\":[1],\"num_warps\":0}", NULL) &&
	       moves_to("warps-down", "{\"block_sizes\":[1],\"num_warps\":64}", "{\"block_sizes\":[1],\"num_warps\":32}"),
	       "num_warps moves within 1 to 32 and stays a whole number; absent, not an integer or 0, it does not move; "
	       "past 32, down moves it back");
	TAP_OK(moves_to("stages-up", "{\"block_sizes\":[1],\"num_stages\":7}", "{\"block_sizes\":[1],\"num_stages\":8}") &&
	       moves_to("stages-up", "{\"block_sizes\":[1],\"num_stages\":8}", NULL) &&
	       moves_to("stages-down", "{\"block_sizes\":[1],\"num_stages\":2}", "{\"block_sizes\":[1],\"num_stages\":1}") &&
	       moves_to("stages-down", "{\"block_sizes\":[1]}", NULL) &&
	       moves_to("stages-up", "{\"block_sizes\":[1],\"num_stages\":\"3\"}", "{\"block_sizes\":[1],\"num_stages\":2}"),
	       "num_stages moves within 1 to 8, from 1 where it is absent or not an integer");
	TAP_OK(moves_to("b0-down", "{\"block_sizes\":[3]}", NULL) && moves_to("b0-up", "{\"block_sizes\":[\"8\"]}", NULL) &&
	       moves_to("b0-up", "{\"block_sizes\":3}", NULL),
	       "a block size stays a whole number, and one that is not an integer in a list does not move");
	const char *eight = "{\"block_sizes\":[1,1,1,1,1,1,1,1,1]}";
	TAP_OK(moves_to("b7-up", eight, "{\"block_sizes\":[1,1,1,1,1,1,1,2,1]}") && moves_to("b8-up", eight, NULL),
	       "blocks b0 to b7 move, b8 is past the moves' blocks");
	TAP_OK(moves_to("b0-up-", "{\"block_sizes\":[1]}", NULL) && moves_to("b0-up-warps-down", "{\"block_sizes\":[1],\"num_warps\":4}", NULL) &&
	       moves_to("sideways", "{\"block_sizes\":[1]}", NULL),
	       "a move it does not know does not apply");
	TAP_OK(moves_to("indexing-block_ptr", "{\"block_sizes\":[1],\"indexing\":\"pointer\"}",
			"{\"block_sizes\":[1],\"indexing\":\"block_ptr\"}") &&
	       moves_to("indexing-pointer", "{\"block_sizes\":[1],\"indexing\":\"pointer\"}", NULL) &&
	       moves_to("indexing-pointer", "{\"block_sizes\":[1],\"indexing\":[\"pointer\",\"block_ptr\"]}",
			"{\"block_sizes\":[1],\"indexing\":[\"pointer\",\"pointer\"]}") &&
	       moves_to("pid-flat", "{\"block_sizes\":[1],\"pid_type\":\"flat\"}", NULL) &&
	       moves_to("pid-flat", "{\"block_sizes\":[1]}", NULL),
	       "indexing and pid_type: one string or each of a list set, a move that changes nothing or a key the config lacks: none");
	TAP_OK(moves_to("loop-swap", "{\"block_sizes\":[1],\"loop_orders\":[[0,1,2],[0,1]]}",
			"{\"block_sizes\":[1],\"loop_orders\":[[1,0,2],[0,1]]}") &&
	       moves_to("loop-swap", "{\"block_sizes\":[1]}", NULL),
	       "loop-swap swaps the first two of the first order only; without loop orders it does not apply");
}

/* the context digest of a Helion kernel's later candidates, to the byte:
 * every config tried in order (null where none), a "!" on a failure for
 * want of resources (a failed try only), the plan, and the index of the
 * best pass with a config (the first of equal speedups) */
static void digest_exact(json_t *cj)
{
	static const char *const cs[] = {
		"{\"config\":{\"block_sizes\":[64]},\"plan\":[\"b0-up\",\"b0-down\"]}", "{\"config\":{\"block_sizes\":[128]}}",
		"{\"config\":{\"block_sizes\":[32]}}", "{\"source\":\"x\"}", "{\"config\":{\"block_sizes\":[16]}}",
	};
	json_t *c[5];
	for (int i = 0; i < 5; i++)
		c[i] = J(cs[i]);
	const char *oom = "correctness: the candidate did not run: OutOfResources: out of resource: shared memory";
	struct agent_try t[5] = {
		{ .index = 3, .candidate = c[0], .verdict = "pass", .gate = "perf", .speedup = 1.1 },
		{ .index = 4, .candidate = c[1], .verdict = "fail", .gate = "correctness", .reason = oom },
		{ .index = 5, .candidate = c[2], .verdict = "pass", .gate = "perf", .speedup = 1.1 },
		{ .index = 7, .candidate = c[3], .verdict = "pass", .gate = "perf", .speedup = 2.0 },
		{ .index = 8, .candidate = c[4], .verdict = "pass", .gate = "perf", .reason = oom, .speedup = 1.05 },
	};
	struct kopt_agents cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.budget = 16;
	struct agent_kernel k = { "softmax", "_helion_softmax", "helion", NULL, cj, NULL, NULL, NULL, 0, 0, NULL };
	struct agent_request rq = { .kernel = &k, .cfg = &cfg, .index = 9, .traj = t, .ntraj = 5, .scope = "test.kopt" };
	char *d = agent_context_digest(&rq);
	TAP_OK(d && strstr(d, "helion;tried={\"block_sizes\":[64]},{\"block_sizes\":[128]}!,{\"block_sizes\":[32]},null,"
			      "{\"block_sizes\":[16]};plan=[\"b0-up\",\"b0-down\"];best=3"),
	       "a Helion kernel's context digest: the configs tried, those out of resources, the plan, the best (%s)", d);
	free(d);
	for (int i = 0; i < 5; i++)
		json_decref(c[i]);
}

/* a config out of shared memory rules out those that ask as much: the
 * tuner's sixteen candidates from the kernel's config (JSON), the first
 * with a larger first block failing for want of shared memory */
static void out_of_resources(const struct kopt_agents *cfg, const json_t *row, const char *config, const char *what)
{
	json_t *mm = J(config);
	struct agent_kernel mk = { "matmul", "_helion_matmul", "helion", NULL, mm, (json_t *)row, NULL, NULL, 0, 0, NULL };
	struct agent_reply rp;
	struct agent_try mt[16];
	json_t *mc[16] = { 0 };
	int got = 0, big_after = 0, small_after = 0, smaller_blocks_after = 0, smaller_first_after = 0;
	json_t *big = NULL;
	for (int i = 0; i < 16; i++) {
		struct agent_request mr = { .kernel = &mk, .cfg = cfg, .index = i, .traj = mt, .ntraj = (size_t)i, .scope = "test.kopt" };
		if (agent_propose(&mr, &rp) < 0 || !rp.candidate)
			break;
		mc[i] = rp.candidate;
		free(rp.reason);
		const json_t *cc = json_object_get(mc[i], "config");
		/* the first config with a larger first block runs out of shared memory */
		bool oom = !big && json_integer_value(json_array_get(json_object_get(cc, "block_sizes"), 0)) > 128;
		if (big && needs_more(cc, big))
			big_after++;
		else if (big)
			small_after++;
		/* as much in all but a smaller block: proposed all the same */
		if (big && !blocks_no_smaller(cc, big) && rest_as_much(cc, big))
			smaller_blocks_after++;
		/* ... and one smaller in its first block alone (the block the
		 * config out of shared memory had grown) */
		if (big && only_first_smaller(cc, big) && rest_as_much(cc, big))
			smaller_first_after++;
		if (oom)
			big = (json_t *)cc;
		mt[i] = (struct agent_try){ .index = i, .candidate = mc[i], .verdict = "fail", .gate = "correctness",
					    .reason = oom ? "correctness: the candidate did not run: OutOfResources: out of resource: "
							    "shared memory, Required: 262144, Hardware limit: 232448"
							  : "perf: slower", .speedup = 0.9 };
		got++;
	}
	TAP_OK(big && got >= 8 && big_after == 0 && small_after >= 6 && smaller_blocks_after >= 1 && smaller_first_after >= 1,
	       "after a config out of shared memory, none that asks as much is proposed%s (%d of %d after it; %d others, "
	       "%d of them the same but for a smaller block, %d for a smaller first block alone)",
	       what, big_after, got, small_after, smaller_blocks_after, smaller_first_after);
	struct agent_request dr = { .kernel = &mk, .cfg = cfg, .index = got, .traj = mt, .ntraj = (size_t)got, .scope = "test.kopt" };
	char *with = agent_context_digest(&dr);
	for (int i = 0; i < got; i++)
		mt[i].reason = "perf: slower";
	char *without = agent_context_digest(&dr);
	TAP_OK(strcmp(with, without) != 0, "the context digest says which tries ran out of resources%s", what);
	free(with);
	free(without);
	for (int i = 0; i < got; i++)
		json_decref(mc[i]);
	json_decref(mm);
}

/* the planner's moves for kernel k with the memory at path, as one line */
static char *plan_line(const struct agent_kernel *k, const char *path, const char *scope, char **why)
{
	json_t *plan = helion_plan(k, path, scope, why);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < json_array_size(plan); i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", json_string_value(json_array_get(plan, i)));
	json_decref(plan);
	return strbuf_detach(&sb);
}

/* the plan's order: built in, then by other specs' lessons for the class */
static void plan_order(json_t *cj)
{
	json_t *row = J("{\"bytes\":268435456}");
	struct agent_kernel k = { "softmax", "_helion_softmax", "helion", NULL, cj, row, NULL, NULL, 0, 0, NULL };
	char *cls = agent_features(&k), *dir = fx_tmpdir("helplan"), *why = NULL;
	static const char builtin[] = "b0-up b0-down warps-up warps-down b1-up b1-down stages-up stages-down "
				      "b0-up-warps-up b0-down-warps-down b2-up b2-down indexing-block_ptr "
				      "indexing-tensor_descriptor indexing-pointer pid-persistent_blocked "
				      "pid-persistent_interleaved pid-flat loop-swap";
	char *m = xasprintf("%s/won.jsonl", dir);
	char *got = plan_line(&k, m, "a.kopt", &why);
	TAP_OK(strcmp(got, builtin) == 0 && strstr(why, "built-in order"), "plan: no memory, the built-in order (%s)", why);
	free(got);
	free(why);
	/* warps-down (4th, prior 0.6 - 0.3 * 3 / 18) won once at 1.5x elsewhere:
	 * (1 + 2 * 0.55) / 3 + 2 log 1.5 = 1.51, above every prior */
	memory_append(m, "other.kopt", cls, "warps-down", NULL, NULL, 1, 1.5);
	got = plan_line(&k, m, "a.kopt", &why);
	TAP_OK(strncmp(got, "warps-down b0-up b0-down warps-up b1-up ", 40) == 0 && strstr(why, "1 lesson from other specs"),
	       "plan: a move that won for another spec comes first (%s)", why);
	free(got);
	free(why);
	got = plan_line(&k, m, "other.kopt", NULL);
	TAP_IS_STR(got, builtin, "plan: the spec's own lesson does not rank its plan");
	free(got);
	free(m);
	/* b0-up (first, prior 0.6) lost twice: (0 + 1.2) / (2 + 2) = 0.3, the
	 * last move's prior: a tie, kept in the built-in order */
	m = xasprintf("%s/lost.jsonl", dir);
	memory_append(m, "other.kopt", cls, "b0-up", NULL, NULL, 0, 0);
	memory_append(m, "other.kopt", cls, "b0-up", NULL, NULL, 0, 0);
	got = plan_line(&k, m, "a.kopt", NULL);
	TAP_OK(strncmp(got, "b0-down warps-up ", 17) == 0 && strstr(got, " pid-flat b0-up loop-swap") &&
		       strlen(got) == strlen(builtin),
	       "plan: a move that lost twice sinks to the last prior's rank, before the last move (%s)", got);
	free(got);
	free(m);
	fx_rmrf(dir);
	free(dir);
	free(cls);
	json_decref(row);
}

int main(void)
{
	struct kopt_agents cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.budget = 16;
	cfg.seed = 1;
	const char *c = "{\"block_sizes\":[64,32],\"num_warps\":4,\"num_stages\":2,\"indexing\":[\"pointer\",\"pointer\"],"
			"\"pid_type\":\"flat\",\"loop_orders\":[[0,1]]}";
	TAP_OK(moves_to("b1-down", c, "{\"block_sizes\":[64,16],\"num_warps\":4,\"num_stages\":2,\"indexing\":[\"pointer\",\"pointer\"],"
			"\"pid_type\":\"flat\",\"loop_orders\":[[0,1]]}"), "b1-down halves the second block and nothing else");
	TAP_OK(moves_to("b0-up-warps-up", c, "{\"block_sizes\":[128,32],\"num_warps\":8,\"num_stages\":2,\"indexing\":[\"pointer\",\"pointer\"],"
			"\"pid_type\":\"flat\",\"loop_orders\":[[0,1]]}"), "b0-up-warps-up doubles both");
	TAP_OK(moves_to("b2-up", c, NULL), "a block the config does not have: the move does not apply");
	TAP_OK(moves_to("b0-up", "{\"block_sizes\":[32768]}", "{\"block_sizes\":[65536]}") &&
	       moves_to("b0-up", "{\"block_sizes\":[65536]}", NULL) && moves_to("b0-down", "{\"block_sizes\":[1]}", NULL) &&
	       moves_to("b0-down", "{\"block_sizes\":[2]}", "{\"block_sizes\":[1]}"),
	       "a block size moves within 1 to 65536, both ends included");
	TAP_OK(moves_to("warps-up", "{\"block_sizes\":[1],\"num_warps\":32}", NULL), "warps-up stops at 32");
	TAP_OK(moves_to("stages-down", "{\"block_sizes\":[1],\"num_stages\":1}", NULL), "stages-down stops at 1");
	TAP_OK(moves_to("stages-up", "{\"block_sizes\":[1]}", "{\"block_sizes\":[1],\"num_stages\":2}"),
	       "stages-up from an absent num_stages (1)");
	TAP_OK(moves_to("indexing-block_ptr", c, "{\"block_sizes\":[64,32],\"num_warps\":4,\"num_stages\":2,"
			"\"indexing\":[\"block_ptr\",\"block_ptr\"],\"pid_type\":\"flat\",\"loop_orders\":[[0,1]]}"),
	       "indexing-block_ptr sets every entry of a list");
	TAP_OK(moves_to("indexing-pointer", c, NULL), "an indexing move that changes nothing does not apply");
	TAP_OK(moves_to("indexing-pointer", "{\"block_sizes\":[1]}", NULL), "nor one on a config without indexing");
	TAP_OK(moves_to("pid-persistent_blocked", c, "{\"block_sizes\":[64,32],\"num_warps\":4,\"num_stages\":2,"
			"\"indexing\":[\"pointer\",\"pointer\"],\"pid_type\":\"persistent_blocked\",\"loop_orders\":[[0,1]]}"),
	       "pid-persistent_blocked sets pid_type");
	TAP_OK(moves_to("loop-swap", c, "{\"block_sizes\":[64,32],\"num_warps\":4,\"num_stages\":2,\"indexing\":[\"pointer\",\"pointer\"],"
			"\"pid_type\":\"flat\",\"loop_orders\":[[1,0]]}"), "loop-swap swaps the first loop order's dimensions");
	TAP_OK(moves_to("loop-swap", "{\"block_sizes\":[8],\"loop_orders\":[[0]]}", NULL), "... and needs two of them");
	TAP_OK(moves_to("warps-up", "{\"XBLOCK\":64,\"num_warps\":4}", NULL), "a Triton launch config is no helion.Config");
	moves_at_bounds();

	json_t *cj = J(c);
	char *shape = agent_helion_shape(cj);
	TAP_OK(strcmp(shape, "block_sizes=64,32 num_warps=4 num_stages=2 indexing=pointer,pointer pid_type=flat "
			     "loop_orders=[[0,1]]") == 0, "the shape the long-term memory files: %s", shape);
	free(shape);
	char *bshape = agent_shape(cj, NULL);
	TAP_OK(strstr(bshape, "block_sizes=64,32 ") == bshape, "agent_shape gives a helion.Config's shape");
	free(bshape);
	json_t *frow = J("{\"bytes\":268435456}");
	struct agent_kernel fk = { "softmax", "_helion_softmax", "helion", NULL, cj, frow, NULL, NULL, 0, 0, NULL };
	char *feat = agent_features(&fk);
	TAP_OK(strcmp(feat, "helion/2d/b28") == 0, "a Helion kernel's feature class: its block sizes and bytes (%s)", feat);
	free(feat);
	json_decref(frow);

	/* candidate 0: the quick autotune's config, else the plan's first move */
	json_t *row = J("{\"ns_per_call\":500000,\"share\":1.0,\"frac_peak\":0.5,"
			"\"helion_start\":{\"block_sizes\":[8,32],\"num_warps\":8,\"num_stages\":2}}");
	struct agent_kernel k = { "softmax", "_helion_softmax", "helion", NULL, cj, row, NULL, NULL, 0, 0, NULL };
	struct agent_request rq = { .kernel = &k, .cfg = &cfg, .index = 0, .scope = "test.kopt" };
	struct agent_reply rp;
	TAP_OK(agent_propose(&rq, &rp) == 0 && rp.candidate &&
	       json_equal(json_object_get(rp.candidate, "config"), json_object_get(row, "helion_start")) &&
	       strcmp(json_string_value(json_object_get(rp.candidate, "name")), "helion-quick") == 0,
	       "candidate 0 is the quick autotune's config where the profile has one");
	agent_reply_release(&rp);
	json_object_del(row, "helion_start");
	TAP_OK(agent_propose(&rq, &rp) == 0 && rp.candidate && json_is_array(json_object_get(rp.candidate, "plan")) &&
	       json_integer_value(json_array_get(json_object_get(json_object_get(rp.candidate, "config"), "block_sizes"), 0)) == 128,
	       "without one, the plan's first move (b0-up) from the kernel's own config");
	agent_reply_release(&rp);

	/* twelve candidates, all failing: twelve distinct helion.Configs */
	struct agent_try traj[12];
	json_t *cands[12] = { 0 };
	int n = 0, distinct = 1;
	for (int i = 0; i < 12; i++) {
		struct agent_request r = { .kernel = &k, .cfg = &cfg, .index = i, .traj = traj, .ntraj = (size_t)i, .scope = "test.kopt" };
		if (agent_propose(&r, &rp) < 0 || !rp.candidate)
			break;
		cands[i] = rp.candidate;
		free(rp.reason);
		traj[i] = (struct agent_try){ .index = i, .candidate = cands[i], .verdict = "fail", .gate = "perf",
					      .reason = "slower", .speedup = 0.9 };
		for (int j = 0; j < i; j++)
			distinct &= !json_equal(json_object_get(cands[j], "config"), json_object_get(cands[i], "config"));
		distinct &= agent_helion_config(json_object_get(cands[i], "config")) &&
			    !json_equal(json_object_get(cands[i], "config"), cj);
		n++;
	}
	TAP_OK(n == 12 && distinct, "12 candidates, each a new helion.Config (got %d)", n);
	/* a pass: the next candidate moves from it */
	traj[3].verdict = "pass";
	traj[3].speedup = 1.2;
	struct agent_request r = { .kernel = &k, .cfg = &cfg, .index = 12, .traj = traj, .ntraj = 12, .scope = "test.kopt" };
	char *d1 = agent_context_digest(&r);
	TAP_OK(agent_propose(&r, &rp) == 0 && rp.candidate && strstr(json_string_value(json_object_get(rp.candidate, "strategy")), "from the best so far"),
	       "after a pass, the tuner moves from the best so far");
	agent_reply_release(&rp);
	traj[3].verdict = "fail";
	char *d2 = agent_context_digest(&r);
	TAP_OK(strcmp(d1, d2) != 0, "the context digest changes with the best passing candidate");
	free(d1);
	free(d2);
	for (int i = 0; i < n; i++)
		json_decref(cands[i]);

	out_of_resources(&cfg, row, "{\"block_sizes\":[128,256,64],\"num_warps\":8,\"num_stages\":4,"
				     "\"indexing\":[\"pointer\"],\"pid_type\":\"flat\"}", "");
	out_of_resources(&cfg, row, "{\"block_sizes\":[128,256,64],\"num_warps\":8,\"indexing\":[\"pointer\"],"
				     "\"pid_type\":\"flat\"}", ", the config without num_stages (1)");

	json_t *tc = J("{\"XBLOCK\":64,\"num_warps\":4}");
	k.config = tc;
	rq.kernel = &k;
	TAP_OK(agent_propose(&rq, &rp) == 0 && !rp.candidate && rp.reason && strstr(rp.reason, "without its config"),
	       "a Helion kernel without a helion.Config gets no candidate, and says why");
	agent_reply_release(&rp);
	json_decref(tc);
	digest_exact(cj);
	plan_order(cj);
	json_decref(cj);
	json_decref(row);
	return tap_done();
}
