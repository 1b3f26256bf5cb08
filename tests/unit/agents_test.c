/*
 * tests/unit/agents_test.c: the built-in agents (agents/builtin/search.c)
 * and the long-term memory (agents/memory.c), with no worker: the analyst's
 * leave-alone rule, the planner's order and its re-ranking by memory, the
 * coder's candidates (only the kernel's own keys, never a repeat), the
 * debugger's repair, the tuner after the plan, the screen's configs first,
 * and the context digest.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agents/agent.h"
#include "../../agents/builtin.h"
#include "../../agents/builtin/launch.h"
#include "../../agents/builtin/screened.h"
#include "../../agents/features.h"
#include "../../agents/memory.h"
#include "../tap.h"

static struct kopt_agents cfg;

static json_t *J(const char *t)
{
	json_t *j = json_loads(t, 0, NULL);
	if (!j) {
		fprintf(stderr, "bad JSON %s\n", t);
		exit(2);
	}
	return j;
}

/* proposals with a candidate, and those of them whose status was not 0 */
static int proposed, proposed_not_0;

/* proposes candidates 0..n-1 with every verdict given by verdict(i) */
static int run_search(const struct agent_kernel *k, int n, const char *memory, json_t **cands,
		      const char *(*verdict)(int, double *))
{
	struct agent_try traj[64];
	int got = 0;
	for (int i = 0; i < n; i++) {
		struct agent_request rq = { .kernel = k, .cfg = &cfg, .index = i, .traj = traj, .ntraj = (size_t)i, .memory = memory, .scope = "test.kopt" };
		struct agent_reply rp;
		int rc = agent_propose(&rq, &rp);
		if (rp.candidate) {
			proposed++;
			proposed_not_0 += rc != 0;
		}
		if (rc < 0 || !rp.candidate) {
			agent_reply_release(&rp);
			break;
		}
		cands[i] = rp.candidate;
		rp.candidate = NULL;
		agent_reply_release(&rp);
		double sp = 0;
		traj[i] = (struct agent_try){ i, cands[i], verdict(i, &sp), NULL, NULL, sp, 0, 0 };
		if (strcmp(traj[i].verdict, "fail") == 0)
			traj[i].gate = "perf";
		got++;
	}
	return got;
}

static const char *first_passes(int i, double *sp)
{
	*sp = i == 0 ? 1.2 : 0.9;
	return i == 0 ? "pass" : "fail";
}

static const char *all_fail(int i, double *sp)
{
	(void)i;
	*sp = 0.9;
	return "fail";
}

/*
 * A simulated objective (a test double for the GPU): on this kind of kernel,
 * halving num_warps pays 1.2x, halving R0_BLOCK with it 1.1x, the rest loses.
 * Runs a search with learning and returns the index of the first candidate
 * that reaches the best speedup, or -1.
 */
static double objective(const json_t *cand)
{
	const char *st = json_string_value(json_object_get(cand, "strategy"));
	if (st && strncmp(st, "coder: warps-down ", 18) == 0)
		return 1.2;
	if (st && strncmp(st, "coder: r-down-warps-down ", 25) == 0)
		return 1.1;
	return 0.9;
}

static int search_and_learn(const struct agent_kernel *k, const char *memory, const char *scope, int budget)
{
	struct agent_try traj[32];
	json_t *cands[32];
	int first_best = -1, n = 0;
	for (int i = 0; i < budget; i++) {
		struct agent_request rq = { .kernel = k, .cfg = &cfg, .index = i, .traj = traj, .ntraj = (size_t)i, .memory = memory, .scope = scope };
		struct agent_reply rp;
		if (agent_propose(&rq, &rp) < 0 || !rp.candidate) {
			agent_reply_release(&rp);
			break;
		}
		cands[i] = rp.candidate;
		rp.candidate = NULL;
		agent_reply_release(&rp);
		double x = objective(cands[i]);
		bool pass = x >= 1.03;
		traj[i] = (struct agent_try){ i, cands[i], pass ? "pass" : "fail", pass ? NULL : "perf", "", pass ? x : 0, 0, 0 };
		agent_learn(memory, scope, NULL, k, cands[i], pass, x);
		if (x >= 1.2 && first_best < 0)
			first_best = i;
		n++;
	}
	for (int i = 0; i < n; i++)
		json_decref(cands[i]);
	return first_best;
}

/*
 * launch_equal: two launch configs are one config when their five launch
 * keys read alike (num_stages 1 when absent) and every other key (R1_BLOCK,
 * a screened config's extras) is in both with the same value, whichever
 * side holds it; anything but two objects is never equal.
 */
static void test_launch_equal(void)
{
	static const struct { const char *a, *b; int equal; } cases[] = {
		{ "{\"XBLOCK\":1,\"num_warps\":4}", "{\"num_warps\":4,\"XBLOCK\":1}", 1 },
		{ "{\"XBLOCK\":1,\"num_warps\":4}", "{\"XBLOCK\":1,\"num_warps\":4,\"num_stages\":1}", 1 },
		{ "{\"XBLOCK\":1,\"num_warps\":4}", "{\"XBLOCK\":2,\"num_warps\":4}", 0 },
		{ "{\"XBLOCK\":1,\"num_warps\":4}", "{\"XBLOCK\":1,\"num_warps\":4,\"num_stages\":2}", 0 },
		{ "{\"XBLOCK\":1,\"R1_BLOCK\":8}", "{\"XBLOCK\":1,\"R1_BLOCK\":8}", 1 },
		{ "{\"XBLOCK\":1,\"R1_BLOCK\":8}", "{\"XBLOCK\":1,\"R1_BLOCK\":16}", 0 },
		{ "{\"XBLOCK\":1,\"R1_BLOCK\":8}", "{\"XBLOCK\":1}", 0 },
		{ "{\"XBLOCK\":1}", "{\"XBLOCK\":1,\"R1_BLOCK\":8}", 0 },
		{ "{\"XBLOCK\":1,\"maxnreg\":128}", "{\"XBLOCK\":1}", 0 },
		{ "{\"XBLOCK\":1}", "[1]", 0 },
		{ "[1]", "[1]", 0 },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_t *a = json_loads(cases[i].a, 0, NULL), *b = json_loads(cases[i].b, 0, NULL);
		int got = launch_equal(a, b);
		if (got == cases[i].equal)
			right++;
		else
			tap_diag("launch_equal(%s, %s) = %d", cases[i].a, cases[i].b, got);
		json_decref(a);
		json_decref(b);
	}
	TAP_IS_INT(right, (int)(sizeof cases / sizeof *cases), "launch_equal: the five keys alike and every other key in "
		   "both with the same value, whichever config holds it");
}

/*
 * launch_clamp: each parameter's range, both ends in and one past each
 * out (num_warps 1..32, num_stages 1..4, a block 1..8192 and no more than
 * Inductor's largest for its axis: XBLOCK 4096, YBLOCK 1024), the value
 * rounded to the nearest integer first (a half away from zero: halving 1
 * gives 1 again, a quarter of 1 gives 0, out of range); launch_apply: a strategy's result
 * to the value, one that would leave the range does not apply, and a
 * missing key or a non-object config neither.
 */
static void test_launch_ranges(void)
{
	static const struct { const char *p; double v; int ok, out; } cases[] = {
		{ "num_warps", 0, 0, 0 },     { "num_warps", 1, 1, 1 },       { "num_warps", 32, 1, 32 },
		{ "num_warps", 33, 0, 0 },    { "num_warps", 0.4, 0, 0 },     { "num_warps", 31.6, 1, 32 },
		{ "num_stages", 0, 0, 0 },    { "num_stages", 1, 1, 1 },      { "num_stages", 4, 1, 4 },
		{ "num_stages", 5, 0, 0 },    { "XBLOCK", 0, 0, 0 },          { "XBLOCK", 1, 1, 1 },
		{ "XBLOCK", 4096, 1, 4096 },  { "XBLOCK", 4097, 0, 0 },       { "R0_BLOCK", 8192.4, 1, 8192 },
		{ "R0_BLOCK", -1, 0, 0 },     { "YBLOCK", 1024, 1, 1024 },    { "num_warps", 0.5, 1, 1 },
		{ "XBLOCK", 8192, 0, 0 },     { "YBLOCK", 2048, 0, 0 },       { "R0_BLOCK", 8193, 0, 0 },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int out = -7, r = launch_clamp(cases[i].p, cases[i].v, &out);
		if (cases[i].ok ? r == 0 && out == cases[i].out : r == -1 && out == -7)
			right++;
		else
			tap_diag("launch_clamp(%s, %g) = %d, %d", cases[i].p, cases[i].v, r, out);
	}
	TAP_IS_INT(right, (int)(sizeof cases / sizeof *cases),
		   "launch_clamp: num_warps 1..32, num_stages 1..4, blocks 1..8192 and their axis's largest, both ends in, one past out");

	static const struct { const char *s, *base, *want; } ap[] = {
		{ "warps-up", "{\"XBLOCK\":64,\"num_warps\":16}", "{\"XBLOCK\":64,\"num_warps\":32}" },
		{ "warps-up", "{\"XBLOCK\":64,\"num_warps\":32}", NULL },
		{ "warps-down", "{\"XBLOCK\":64,\"num_warps\":2}", "{\"XBLOCK\":64,\"num_warps\":1}" },
		{ "x-up", "{\"XBLOCK\":2048,\"num_warps\":4}", "{\"XBLOCK\":4096,\"num_warps\":4}" },
		{ "x-up", "{\"XBLOCK\":4096,\"num_warps\":4}", NULL },
		{ "x-up4", "{\"XBLOCK\":1024}", "{\"XBLOCK\":4096}" },
		{ "x-up4", "{\"XBLOCK\":2048}", NULL },
		{ "r-up", "{\"R0_BLOCK\":4096}", "{\"R0_BLOCK\":8192}" },
		{ "y-up", "{\"XBLOCK\":64,\"YBLOCK\":512}", "{\"XBLOCK\":64,\"YBLOCK\":1024}" },
		{ "y-up", "{\"XBLOCK\":64,\"YBLOCK\":1024}", NULL },
		{ "r-down4", "{\"R0_BLOCK\":4}", "{\"R0_BLOCK\":1}" },
		{ "r-down4", "{\"R0_BLOCK\":1}", NULL },
		{ "y-up", "{\"XBLOCK\":64}", NULL },
		{ "x-up", "{\"XBLOCK\":\"64\"}", NULL },
		{ "stages-up", "{\"XBLOCK\":64}", "{\"XBLOCK\":64,\"num_stages\":2}" },
		{ "stages-up", "{\"XBLOCK\":64,\"num_stages\":3}", "{\"XBLOCK\":64,\"num_stages\":4}" },
		{ "stages-up", "{\"XBLOCK\":64,\"num_stages\":4}", NULL },
		{ "x-up-warps-up", "{\"XBLOCK\":64,\"num_warps\":4}", "{\"XBLOCK\":128,\"num_warps\":8}" },
		{ "x-up-warps-up", "{\"XBLOCK\":64,\"num_warps\":32}", NULL },
		{ "x-up-warps-up", "{\"XBLOCK\":8192,\"num_warps\":4}", NULL },
		{ "y-up-x-down", "{\"XBLOCK\":64,\"YBLOCK\":8}", "{\"XBLOCK\":32,\"YBLOCK\":16}" },
		{ "y-up-x-down", "{\"XBLOCK\":64,\"YBLOCK\":1024}", NULL },
		{ "evict-first", "{\"XBLOCK\":64}", NULL },
		{ "x-up", "[64]", NULL },
	};
	right = 0;
	for (size_t i = 0; i < sizeof ap / sizeof *ap; i++) {
		json_t *b = json_loads(ap[i].base, 0, NULL), *w = ap[i].want ? json_loads(ap[i].want, 0, NULL) : NULL;
		const struct strategy *st = launch_strategy(ap[i].s);
		json_t *got = st ? launch_apply(st, b) : NULL;
		if (st && (w ? got && json_equal(got, w) : !got))
			right++;
		else {
			char *t = got ? json_dumps(got, JSON_COMPACT) : NULL;
			tap_diag("%s on %s gave %s", ap[i].s, ap[i].base, t ? t : "NULL");
			free(t);
		}
		json_decref(b);
		json_decref(w);
		json_decref(got);
	}
	TAP_IS_INT(right, (int)(sizeof ap / sizeof *ap),
		   "launch_apply: each strategy's config to the value; past a range, a missing key or no object: none");
	TAP_OK(launch_strategy("warps-sideways") == NULL && launch_strategy("persistent") != NULL,
	       "launch_strategy: a name it does not know is no strategy");
}

/*
 * The terms lessons are filed in, to the value: the bytes' bucket (floor of
 * log2, rounded down to even: 3 bytes b0, 4 to 15 b2, 16 b4), the
 * reduction's length the same where the source writes it as a whole
 * number, looped or flat by R0_BLOCK, "unknown" without a heuristic; a
 * shape's reduction block as the fraction of the row it covers, the whole
 * row "1" from its length up, num_stages 1 where unset, keys that are not
 * integers left out; agent_launch_block: the block keys.
 */
static void test_features_shape(void)
{
	static const struct { const char *heur, *conf, *src; double bytes; const char *want; } fc[] = {
		{ "pointwise", "{\"XBLOCK\":64}", NULL, 3, "pointwise/flat/b0" },
		{ "pointwise", "{\"XBLOCK\":64}", NULL, 4, "pointwise/flat/b2" },
		{ "pointwise", "{\"XBLOCK\":64}", NULL, 15, "pointwise/flat/b2" },
		{ "pointwise", "{\"XBLOCK\":64}", NULL, 16, "pointwise/flat/b4" },
		{ "pointwise", "{\"XBLOCK\":64}", NULL, 0, "pointwise/flat/b0" },
		{ NULL, "{\"XBLOCK\":64}", NULL, 1024, "unknown/flat/b10" },
		{ "reduction", "{\"XBLOCK\":1,\"R0_BLOCK\":64}", "    r0_numel = 1\n", 64, "reduction/looped/r0/b6" },
		{ "reduction", "{\"XBLOCK\":1,\"R0_BLOCK\":64}", "    r0_numel = 4\n", 64, "reduction/looped/r2/b6" },
		{ "reduction", "{\"XBLOCK\":1,\"R0_BLOCK\":64}", "    r0_numel = 3\r\n", 64, "reduction/looped/r0/b6" },
		{ "reduction", "{\"XBLOCK\":1,\"R0_BLOCK\":64}", "    r0_numel = 0\n", 64, "reduction/looped/b6" },
		{ "reduction", "{\"XBLOCK\":1,\"R0_BLOCK\":64}", "    r0_numel = 64 * 2\n", 64, "reduction/looped/b6" },
		{ "reduction", "{\"XBLOCK\":1,\"R0_BLOCK\":64}", "    r0_numel = \n", 64, "reduction/looped/b6" },
		{ "persistent_reduction", "{\"XBLOCK\":1}", "    r0_numel = 1024\n", 64, "persistent_reduction/flat/r10/b6" },
		{ "helion", "{\"block_sizes\":[64,32,16]}", NULL, 64, "helion/3d/b6" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof fc / sizeof *fc; i++) {
		json_t *conf = json_loads(fc[i].conf, 0, NULL), *row = json_pack("{s:f}", "bytes", fc[i].bytes);
		struct agent_kernel k = { "m", "k", fc[i].heur, fc[i].src, conf, row, NULL, NULL, 0, 0, NULL };
		char *f = agent_features(&k);
		if (strcmp(f, fc[i].want) == 0)
			right++;
		else
			tap_diag("features %zu: %s, want %s", i, f, fc[i].want);
		free(f);
		json_decref(conf);
		json_decref(row);
	}
	TAP_IS_INT(right, (int)(sizeof fc / sizeof *fc), "features: the bytes' and the reduction's buckets, looped or flat");

	static const struct { const char *conf, *src, *want; } sh[] = {
		{ "{\"XBLOCK\":1,\"R0_BLOCK\":1000}", "    r0_numel = 1000\n", "XBLOCK=1 R0_BLOCK=1 num_stages=1" },
		{ "{\"XBLOCK\":1,\"R0_BLOCK\":2048}", "    r0_numel = 1000\n", "XBLOCK=1 R0_BLOCK=1 num_stages=1" },
		{ "{\"XBLOCK\":1,\"R0_BLOCK\":999}", "    r0_numel = 1000\n", "XBLOCK=1 R0_BLOCK=1/1 num_stages=1" },
		{ "{\"XBLOCK\":1,\"R0_BLOCK\":250}", "    r0_numel = 1000\n", "XBLOCK=1 R0_BLOCK=1/4 num_stages=1" },
		{ "{\"XBLOCK\":1,\"R0_BLOCK\":250}", NULL, "XBLOCK=1 R0_BLOCK=250 num_stages=1" },
		{ "{\"XBLOCK\":1,\"R0_BLOCK\":0}", "    r0_numel = 1000\n", "XBLOCK=1 R0_BLOCK=0 num_stages=1" },
		{ "{\"XBLOCK\":\"8\",\"YBLOCK\":4,\"num_warps\":8,\"num_stages\":3}", NULL, "YBLOCK=4 num_warps=8 num_stages=3" },
		{ "{}", NULL, "num_stages=1" },
	};
	right = 0;
	for (size_t i = 0; i < sizeof sh / sizeof *sh; i++) {
		json_t *conf = json_loads(sh[i].conf, 0, NULL);
		char *got = agent_shape(conf, sh[i].src);
		if (strcmp(got, sh[i].want) == 0)
			right++;
		else
			tap_diag("shape %zu: '%s', want '%s'", i, got, sh[i].want);
		free(got);
		json_decref(conf);
	}
	TAP_IS_INT(right, (int)(sizeof sh / sizeof *sh), "shape: the reduction block as a fraction of the row, stages 1 when unset");
	json_t *hc = json_loads("{\"block_sizes\":[64],\"indexing\":\"pointer\",\"loop_orders\":[[1,0]],\"range_x\":[1]}", 0, NULL);
	char *hs = agent_shape(hc, NULL);
	TAP_IS_STR(hs, "block_sizes=64 indexing=pointer loop_orders=[[1,0]]",
		   "shape: a helion.Config's keys it names, a nested list as JSON, other keys left out");
	free(hs);
	json_decref(hc);
	TAP_OK(agent_launch_block("XBLOCK") && agent_launch_block("ZBLOCK") && agent_launch_block("R1_BLOCK") &&
	       !agent_launch_block("num_warps") && !agent_launch_block("num_stages") && !agent_launch_block("maxnreg"),
	       "agent_launch_block: the five block keys are blocks, warps, stages and others not");
	json_t *nb = json_loads("{\"block_sizes\":64}", 0, NULL);
	TAP_OK(!agent_helion_config(NULL) && !agent_helion_config(nb), "a config whose block_sizes is not a list is no helion.Config");
	json_decref(nb);
}

/*
 * The candidate library: a candidate written and read back; its name from
 * the strategy where it has none ("coder: r-down (...)" is r-down, "llm
 * rewrite" llm), cut to 63 bytes; a screened point is named "screen" or
 * "screen:..." and nothing else; a role's backend without a config is
 * the built-in one.
 */
static void test_candidate(void)
{
	json_t *conf = J("{\"XBLOCK\":8}");
	struct agent_candidate c = { .source = NULL, .config = conf, .role = "coder", .strategy = "coder: x-up", .edit = "" };
	snprintf(c.name, sizeof c.name, "x-up");
	json_t *j = agent_candidate_new(&c);
	char *t = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	TAP_IS_STR(t, "{\"config\":{\"XBLOCK\":8},\"name\":\"x-up\",\"role\":\"coder\",\"source\":null,\"strategy\":\"coder: x-up\"}",
		   "candidate: written with a null source, no edit where it is empty");
	free(t);
	json_decref(j);
	c.edit = "evict0=first";
	c.source = "def k(): pass";
	j = agent_candidate_new(&c);
	struct agent_candidate r;
	TAP_OK(agent_candidate_read(j, &r) == 0 && !strcmp(r.edit, "evict0=first") && !strcmp(r.source, "def k(): pass") &&
	       json_equal((json_t *)r.config, conf) && !strcmp(r.name, "x-up") && !strcmp(r.role, "coder") && !r.planning,
	       "candidate: read back as written");
	json_decref(j);
	static const struct { const char *j, *name; } names[] = {
		{ "{\"strategy\":\"coder: r-down (XBLOCK=1 R0_BLOCK=2048)\"}", "r-down" },
		{ "{\"strategy\":\"tuner: random jump\"}", "random" },
		{ "{\"strategy\":\"llm rewrite\"}", "llm" },
		{ "{\"strategy\":\"coder: warps-up(x)\"}", "warps-up" },
		{ "{\"strategy\":\"coder: r-down\",\"name\":\"named\"}", "named" },
		{ "{\"config\":[1]}", "" },
		{ "{\"name\":\"0123456789012345678901234567890123456789012345678901234567890123456789\"}",
		  "012345678901234567890123456789012345678901234567890123456789012" },
	};
	int right = 0;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		json_t *x = J(names[i].j);
		if (agent_candidate_read(x, &r) == 0 && !strcmp(r.name, names[i].name) && (i != 5 || !r.config))
			right++;
		else
			tap_diag("%s: name '%s'", names[i].j, r.name);
		json_decref(x);
	}
	TAP_IS_INT(right, (int)(sizeof names / sizeof *names),
		   "candidate: a name from the strategy after its role, to a space or a parenthesis, 63 bytes at most");
	json_t *arr = J("[1]");
	TAP_OK(agent_candidate_read(arr, &r) == -1 && agent_candidate_read(NULL, &r) == -1, "candidate: anything but an object is no candidate");
	json_decref(arr);
	static const struct { const char *name; bool screened; } sc[] = {
		{ "screen", true }, { "screen:evict+rstages", true }, { "screened", false }, { "screen-1", false },
		{ "scree", false }, { "x-up", false },
	};
	right = 0;
	for (size_t i = 0; i < sizeof sc / sizeof *sc; i++) {
		json_t *x = json_pack("{s:s}", "name", sc[i].name);
		right += agent_screened(x) == sc[i].screened;
		json_decref(x);
	}
	TAP_IS_INT(right, 6, "candidate: a screened point is named screen or screen:..., nothing else");
	TAP_OK(!agent_role_is_llm(NULL, KOPT_ROLE_CODER) && agent_role(NULL, KOPT_ROLE_DEBUGGER)->backend == KOPT_BACKEND_BUILTIN,
	       "candidate: without a config every role is the built-in one");
	json_decref(conf);
}

/*
 * The screen's points as candidates: named after the kinds of knob their
 * edit sets, each kind once, in the edit's order (a template's BLOCK_ and
 * GROUP_ knobs are "tile", other upper-case knobs no kind), with the time
 * alone the screen gave the same config and edit; an edit without its
 * source is a config alone; a config without an object is skipped, and
 * the kernel's own config or one proposed already is not proposed again.
 */
static void test_screened(void)
{
	static const struct { const char *edit, *name; } kinds[] = {
		{ "evict0=first+evict2=none+rstages=2", "screen:evict+rstages" },
		{ "rstages=2+evict0=first", "screen:rstages+evict" },
		{ "BLOCK_M=128+BLOCK_N=64+GROUP_M=4", "screen:tile" },
		{ "evict1=none+BLOCK_M=128+evict0=last", "screen:evict+tile" },
		{ "evict0=first+evicts1=x", "screen:evict+evicts" },
		{ "X=1", "screen:" },
	};
	json_t *own = J("{\"XBLOCK\":64,\"num_warps\":4}");
	struct agent_kernel k = { "m", "triton_poi_fused_0", "pointwise", "src", own, NULL, NULL, NULL, 0, 0, NULL };
	int right = 0;
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		json_t *screen = json_pack("[{s:{s:i,s:i}, s:s, s:s, s:f}]", "config", "XBLOCK", 128, "num_warps", 4, "edit",
					   kinds[i].edit, "source", "edited", "speedup", 1.25);
		struct agent_request rq = { .kernel = &k, .index = 0, .screen = screen };
		json_t *ed, *sc = screened_configs(&rq, &ed);
		char *why = NULL;
		json_t *c = screened_next(&rq, sc, ed, &why);
		const char *name = json_string_value(json_object_get(c, "name"));
		char want[128];
		snprintf(want, sizeof want, "screen: %s XBLOCK=128 num_warps=4 (1.250x alone)", kinds[i].edit);
		if (name && !strcmp(name, kinds[i].name) && why && !strcmp(why, want) &&
		    !strcmp(json_string_value(json_object_get(c, "source")), "edited") &&
		    !strcmp(json_string_value(json_object_get(c, "edit")), kinds[i].edit))
			right++;
		else
			tap_diag("%s: name %s, reason %s", kinds[i].edit, name ? name : "(none)", why ? why : "(none)");
		free(why);
		json_decref(c);
		json_decref(sc);
		json_decref(ed);
		json_decref(screen);
	}
	TAP_IS_INT(right, (int)(sizeof kinds / sizeof *kinds),
		   "screened: a point is named after its edit's kinds of knob, each once, in order, with its time alone");

	/* four points: no config object, the kernel's own, an edit without
	 * its source (a config alone), then one more */
	json_t *screen = J("[{\"config\":7,\"speedup\":2.0},{\"config\":{\"XBLOCK\":64,\"num_warps\":4},\"speedup\":1.5},"
			   "{\"config\":{\"XBLOCK\":32,\"num_warps\":4},\"edit\":\"evict0=first\",\"speedup\":1.2},"
			   "{\"config\":{\"XBLOCK\":16,\"num_warps\":4},\"edit\":\"\",\"speedup\":1.1}]");
	struct agent_request rq = { .kernel = &k, .index = 0, .screen = screen };
	json_t *ed, *sc = screened_configs(&rq, &ed);
	char *why = NULL;
	json_t *c = screened_next(&rq, sc, ed, &why);
	TAP_OK(json_array_size(sc) == 3 && ed == NULL && c && json_is_null(json_object_get(c, "source")) &&
	       !json_object_get(c, "edit") && !strcmp(json_string_value(json_object_get(c, "name")), "screen") &&
	       json_integer_value(json_object_get(json_object_get(c, "config"), "XBLOCK")) == 32 &&
	       why && !strcmp(why, "screen: XBLOCK=32 num_warps=4"),
	       "screened: no config object skipped, the kernel's own not proposed, an edit without its source a config alone, "
	       "no time where the screen has none for it (%s)", why ? why : "(none)");
	free(why);
	struct agent_try tr = { 0, c, "fail", "perf", NULL, 0.9, 0, 0 };
	rq.index = 1;
	rq.traj = &tr;
	rq.ntraj = 1;
	json_object_set(c, "screen", sc);
	json_t *ed1, *sc1 = screened_configs(&rq, &ed1);
	json_t *c1 = screened_next(&rq, sc1, ed1, NULL);
	TAP_OK(sc1 && json_equal(sc1, sc) && !ed1 && c1 && json_integer_value(json_object_get(json_object_get(c1, "config"), "XBLOCK")) == 16,
	       "screened: candidate 1 reads the points from candidate 0 and takes the next one not tried");
	rq.ntraj = 0;
	json_t *ed2;
	TAP_OK(screened_configs(&rq, &ed2) == NULL && ed2 == NULL, "screened: a later candidate without candidate 0: none");
	json_decref(c1);
	json_decref(sc1);
	json_decref(c);
	json_decref(sc);
	json_decref(screen);
	json_decref(own);
}

/* the planner's built-in order per kind of kernel: a persistent reduction's,
 * any other reduction's (by the word in its heuristic), and the pointwise
 * one for the rest, a kernel without a heuristic too */
static void test_plan_prior(void)
{
	static const struct { const char *heur; size_t n; const char *first, *last; } pr[] = {
		{ "persistent_reduction", 7, "warps-down", "evict-first" },
		{ "reduction", 12, "persistent", "evict-first" },
		{ "split_reduction", 12, "persistent", "evict-first" },
		{ "pointwise", 12, "x-up", "evict-first" },
		{ "template", 12, "x-up", "evict-first" },
		{ NULL, 12, "x-up", "evict-first" },
	};
	json_t *conf = J("{\"XBLOCK\":64,\"R0_BLOCK\":64,\"num_warps\":4}");
	int right = 0;
	for (size_t i = 0; i < sizeof pr / sizeof *pr; i++) {
		struct agent_kernel k = { "m", "k", pr[i].heur, NULL, conf, NULL, NULL, NULL, 0, 0, NULL };
		char *why = NULL;
		json_t *plan = agent_builtin_plan(&k, "/nonexistent/kopt-memory.jsonl", "a.kopt", &why);
		if (json_array_size(plan) == pr[i].n && !strcmp(json_string_value(json_array_get(plan, 0)), pr[i].first) &&
		    !strcmp(json_string_value(json_array_get(plan, pr[i].n - 1)), pr[i].last) &&
		    why && !strncmp(why, "planner: the built-in order (no lessons from other specs for ", 61))
			right++;
		else
			tap_diag("%s: %zu, first %s, %s", pr[i].heur ? pr[i].heur : "(none)", json_array_size(plan),
				 json_string_value(json_array_get(plan, 0)), why ? why : "");
		free(why);
		json_decref(plan);
	}
	TAP_IS_INT(right, (int)(sizeof pr / sizeof *pr), "planner: the built-in order per kind of kernel, without lessons");
	json_decref(conf);
}

/* the persistent edit's launch config by the row's length (k: Inductor's
 * softmax, its rows of 16384): one row a block, the row rounded up to a
 * power of two, 4 warps, 8 from 2048 columns, 16 from 8192, one stage;
 * the strategy line says it */
static void persist_configs(const struct agent_kernel *k, const char *memory)
{
	static const struct {
		const char *numel;
		int rb, warps;
	} prows[] = { { "1024", 1024, 4 }, { "1500", 2048, 8 }, { "2047", 2048, 8 }, { "2048", 2048, 8 },
			      { "4096", 4096, 8 }, { "8191", 8192, 16 }, { "8192", 8192, 16 } };
	int prows_right = 0;
	for (size_t r = 0; r < sizeof prows / sizeof *prows; r++) {
		const char *at = strstr(k->source, "    r0_numel = 16384\n");
		if (!at)
			break;
		char *src = xasprintf("%.*s    r0_numel = %s\n%s", (int)(at - k->source), k->source, prows[r].numel,
				      at + strlen("    r0_numel = 16384\n"));
		struct agent_kernel rk = *k;
		rk.source = src;
		json_t *rc[4] = { 0 };
		int rn = run_search(&rk, 1, memory, rc, all_fail);
		char *want = xasprintf("{\"XBLOCK\":1,\"R0_BLOCK\":%d,\"num_warps\":%d,\"num_stages\":1}", prows[r].rb,
				       prows[r].warps);
		char *line = xasprintf("coder: persistent (XBLOCK=1 R0_BLOCK=%d num_warps=%d num_stages=1)", prows[r].rb,
				       prows[r].warps);
		json_t *wc = J(want);
		const char *st = rn > 0 ? json_string_value(json_object_get(rc[0], "strategy")) : NULL;
		if (rn > 0 && json_equal(json_object_get(rc[0], "config"), wc) && st && strcmp(st, line) == 0)
			prows_right++;
		else
			tap_diag("r0_numel %s: %s", prows[r].numel, st ? st : "(none)");
		json_decref(wc);
		free(want);
		free(line);
		if (rn > 0)
			json_decref(rc[0]);
		free(src);
	}
	TAP_IS_INT(prows_right, (int)(sizeof prows / sizeof *prows),
		   "coder: the persistent edit's config by the row's length: R0_BLOCK the row to a power of two, "
		   "4 warps, 8 from 2048 columns, 16 from 8192");
}

int main(void)
{
	memset(&cfg, 0, sizeof cfg);
	cfg.budget = 16;
	cfg.seed = 1;
	char tmpl[] = "/tmp/kopt-agents-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char *memory = xasprintf("%s/memory.jsonl", dir);

	/* analyst */
	json_t *red = J("{\"XBLOCK\":1,\"R0_BLOCK\":4096,\"num_warps\":16,\"num_stages\":1}");
	json_t *fast_row = J("{\"ns_per_call\":300000,\"share\":1.0,\"bytes\":1342177280,\"frac_peak\":0.98}");
	json_t *rms_row = J("{\"ns_per_call\":293177,\"share\":1.0,\"bytes\":1073750016,\"frac_peak\":0.92}");
	json_t *slow_row = J("{\"ns_per_call\":667000,\"share\":1.0,\"bytes\":1342177280,\"frac_peak\":0.39}");
	struct agent_kernel fast = { "softmax", "triton_red_fused_0", "reduction", NULL, red, fast_row, NULL, NULL, 0, 0, NULL };
	struct agent_kernel slow = { "avgpool", "triton_red_fused_1", "reduction", NULL, red, slow_row, NULL, NULL, 0, 0, NULL };
	struct agent_request rq = { .kernel = &fast, .cfg = &cfg, .index = 0, .memory = memory, .scope = "test.kopt" };
	struct agent_reply rp;
	TAP_OK(agent_propose(&rq, &rp) == 0 && !rp.candidate && strstr(rp.reason, "98% of the copy bandwidth: left alone"),
	       "analyst: a kernel at 98%% of the copy bandwidth is left alone, and says why");
	agent_reply_release(&rp);
	/* a Helion config on which no move applies (no block sizes, no warps,
	 * stages that no step of one brings into 1 to 8): no candidate, and
	 * the planner says why, an answer and not a failure */
	json_t *stuck = J("{\"block_sizes\":[],\"num_stages\":-5}");
	struct agent_kernel hk = { "helion_m", "helion_k", "helion", NULL, stuck, slow_row, NULL, NULL, 0, 0, NULL };
	rq.kernel = &hk;
	int hrc = agent_propose(&rq, &rp);
	TAP_OK(hrc == 0 && !rp.candidate && rp.reason &&
		       !strcmp(rp.reason, "planner: no Helion config move applies to this kernel's config"),
	       "helion: a config no move applies to: no candidate, the planner's reason, status 0 (%d: %s)", hrc,
	       rp.reason ? rp.reason : "");
	agent_reply_release(&rp);
	json_decref(stuck);
	/* RMS norm's kernel on the H200: 92% of torch's copy, and 1.13x to gain */
	struct agent_kernel rms = { "rmsnorm", "triton_red_fused_0", "reduction", NULL, red, rms_row, NULL, NULL, 0, 0, NULL };
	rq.kernel = &rms;
	TAP_OK(agent_propose(&rq, &rp) == 0 && rp.candidate && strstr(json_string_value(json_object_get(rp.candidate, "analysis")), "92% of the copy"),
	       "analyst: a kernel at 92%% of the copy bandwidth still gets candidates (the gate's 3%% is within reach)");
	agent_reply_release(&rp);
	/* the screen's lists, carried by candidate 0 where they hold a config
	 * and not where they are empty (or absent) */
	json_t *empty = json_array(), *one = J("[{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":8,\"num_stages\":1}]");
	const json_t *slists[3][2] = { { empty, empty }, { NULL, NULL }, { one, one } };
	int carried_right = 0;
	for (int v = 0; v < 3; v++) {
		struct agent_request sq = { .kernel = &rms, .cfg = &cfg, .index = 0, .memory = memory, .scope = "test.kopt", .screen_slower = slists[v][0], .screen_slower_persist = slists[v][1] };
		if (agent_propose(&sq, &rp) == 0 && rp.candidate) {
			const json_t *a = json_object_get(rp.candidate, "screen_slower"),
				     *b = json_object_get(rp.candidate, "screen_slower_persist");
			carried_right += v < 2 ? !a && !b : a && b && json_equal((json_t *)a, one) && json_equal((json_t *)b, one);
		}
		agent_reply_release(&rp);
	}
	TAP_IS_INT(carried_right, 3, "candidate 0 carries the screen's slower lists that hold a config, not an empty one or none");
	json_decref(empty);
	json_decref(one);
	rq.kernel = &fast;
	/* the cross-entropy gather of the H200 run: 537 MB of arguments in 9.5 us */
	json_t *gather_row = J("{\"ns_per_call\":9467,\"share\":0.03,\"bytes\":537133080,\"frac_peak\":13.58}");
	struct agent_kernel gather = { "cross_entropy", "triton_red_fused_1", "reduction", NULL, red, gather_row, NULL, NULL, 0, 0, NULL };
	rq.kernel = &gather;
	TAP_OK(agent_propose(&rq, &rp) == 0 && rp.candidate && strstr(json_string_value(json_object_get(rp.candidate, "analysis")), "overstate"),
	       "analyst: arguments over the copy bandwidth are not the traffic; the kernel is not left alone");
	agent_reply_release(&rp);
	rq.kernel = &fast;
	json_decref(gather_row);

	/* planner: deterministic, reduction prior */
	json_t *p1 = agent_builtin_plan(&slow, memory, "other.kopt", NULL), *p2 = agent_builtin_plan(&slow, memory, "other.kopt", NULL);
	TAP_OK(json_equal(p1, p2), "planner: the same plan twice");
	TAP_IS_STR(json_string_value(json_array_get(p1, 0)), "persistent",
		   "planner: looped reductions try the persistent edit first (it applies only where a row is read twice)");
	TAP_IS_STR(json_string_value(json_array_get(p1, 1)), "r-down", "planner: then a smaller R0_BLOCK");
	json_decref(p2);

	/* coder: candidate 0 carries the plan and the diagnosis; configs keep the kernel's keys */
	json_t *c[64] = { 0 };
	int n = run_search(&slow, 16, memory, c, all_fail);
	TAP_IS_INT(n, 16, "search: 16 candidates for a reduction kernel");
	TAP_OK(json_equal(json_object_get(c[0], "plan"), p1), "candidate 0 carries the plan");
	TAP_OK(strstr(json_string_value(json_object_get(c[0], "analysis")), "39%") != NULL, "candidate 0 carries the analyst's diagnosis");
	TAP_IS_STR(json_string_value(json_object_get(c[0], "strategy")), "coder: r-down (XBLOCK=1 R0_BLOCK=2048 num_warps=16 num_stages=1)",
		   "candidate 0: the plan's first strategy on the current config");
	int dups = 0, foreign = 0, current = 0;
	for (int i = 0; i < n; i++) {
		json_t *ci = json_object_get(c[i], "config");
		if (!json_is_object(ci))
			continue;
		current += json_equal(ci, red);
		const char *key;
		json_t *v;
		json_object_foreach(ci, key, v)
			foreign += !json_object_get(red, key);
		for (int j = 0; j < i; j++)
			dups += json_is_null(json_object_get(c[j], "source")) && json_equal(json_object_get(c[j], "config"), ci);
	}
	TAP_OK(dups == 0 && current == 0, "no candidate repeats a config or the current one");
	TAP_IS_INT(foreign, 0, "configs only set the keys the kernel has (no R0_BLOCK for a persistent one)");
	int tuner = 0;
	for (int i = 0; i < n; i++)
		tuner += strncmp(json_string_value(json_object_get(c[i], "strategy")), "tuner:", 6) == 0;
	TAP_OK(tuner > 0, "after the plan, the tuner proposes");
	/* The tuner's random stream is part of what a proposal's key stands
	 * for: a cached propose step of seed 1 and index i must hold what a
	 * fresh one would draw. A change of the stream must come with a new
	 * version of the propose rule (rules/propose.c, .version); this pins
	 * seed 1's first jump. */
	const json_t *jump = NULL;
	for (int i = 0; i < n && !jump; i++)
		if (strstr(json_string_value(json_object_get(c[i], "strategy")), "random jump"))
			jump = json_object_get(c[i], "config");
	char *jtxt = jump ? json_dumps(jump, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
	TAP_IS_STR(jtxt, "{\"R0_BLOCK\":4096,\"XBLOCK\":4,\"num_stages\":1,\"num_warps\":4}", "tuner: seed 1's first random jump is the recorded one (its stream is in the key)");
	free(jtxt);

	/* determinism: the same sequence again */
	json_t *d[64] = { 0 };
	int n2 = run_search(&slow, 16, memory, d, all_fail);
	int same = n2 == n;
	for (int i = 0; i < n && same; i++)
		same = json_equal(c[i], d[i]);
	TAP_OK(same, "deterministic for a seed");
	for (int i = 0; i < n2; i++)
		json_decref(d[i]);

	/* digest: plan-phase proposals do not depend on verdicts */
	struct agent_try t1[3], t2[3];
	for (int i = 0; i < 3; i++) {
		t1[i] = (struct agent_try){ i, c[i], "fail", "perf", "perf: slower", 0.98, 0, 0 };
		t2[i] = (struct agent_try){ i, c[i], "pass", NULL, "passed", 1.05 + i * 0.01, 0, 0 };
	}
	struct agent_request r1 = { .kernel = &slow, .cfg = &cfg, .index = 3, .traj = t1, .ntraj = 3, .memory = memory, .scope = "test.kopt" }, r2 = { .kernel = &slow, .cfg = &cfg, .index = 3, .traj = t2, .ntraj = 3, .memory = memory, .scope = "test.kopt" };
	char *g1 = agent_context_digest(&r1), *g2 = agent_context_digest(&r2);
	TAP_IS_STR(g1, g2, "digest: a new gamma that flips verdicts does not redo a plan-phase proposal");
	free(g1);
	free(g2);
	struct agent_request r0 = { .kernel = &slow, .cfg = &cfg, .index = 0, .memory = memory, .scope = "test.kopt" };
	g1 = agent_context_digest(&r0);
	TAP_IS_STR(g1, "", "digest: candidate 0 depends on no trajectory");
	free(g1);
	/* past the plan, the proposal depends on the best passing candidate:
	 * the digest names its index, -1 where none passed */
	struct agent_try tx[64];
	for (int i = 0; i < n; i++)
		tx[i] = (struct agent_try){ i, c[i], i == 2 ? "pass" : "fail", i == 2 ? NULL : "perf", NULL,
					    i == 2 ? 1.1 : 0.9, 0, 0 };
	struct agent_request rx = { .kernel = &slow, .cfg = &cfg, .index = n, .traj = tx, .ntraj = (size_t)n, .memory = memory, .scope = "test.kopt" };
	g1 = agent_context_digest(&rx);
	tx[2] = (struct agent_try){ 2, c[2], "fail", "perf", NULL, 0.9, 0, 0 };
	g2 = agent_context_digest(&rx);
	size_t l1 = strlen(g1), l2 = strlen(g2);
	TAP_OK(l1 > 7 && l2 > 8 && strcmp(g1 + l1 - 7, ";best=2") == 0 && strcmp(g2 + l2 - 8, ";best=-1") == 0,
	       "digest: past the plan, the best passing candidate's index, -1 for none (%s, %s)", l1 > 7 ? g1 + l1 - 7 : g1,
	       l2 > 8 ? g2 + l2 - 8 : g2);
	free(g1);
	free(g2);

	/* debugger: a candidate that did not build is repaired once */
	struct agent_try tb[1] = { { 0, c[0], "fail", "static", "static: does not build: out of resource: shared memory", 0, 0, 0 } };
	struct agent_request rr = { .kernel = &slow, .cfg = &cfg, .index = 1, .traj = tb, .ntraj = 1, .memory = memory, .scope = "test.kopt" };
	TAP_OK(agent_propose(&rr, &rp) == 0 && rp.candidate &&
	       strcmp(json_string_value(json_object_get(rp.candidate, "role")), "debugger") == 0 &&
	       json_integer_value(json_object_get(json_object_get(rp.candidate, "config"), "R0_BLOCK")) == 1024,
	       "debugger: repairs a config that did not build by halving its blocks");
	agent_reply_release(&rp);
	/* to the value: XBLOCK, YBLOCK and R0_BLOCK halved down to 1, warps
	 * kept, one stage, repair_of the index; once; only for a build failure */
	{
		json_t *bc = J("{\"source\":null,\"config\":{\"XBLOCK\":2,\"YBLOCK\":1,\"R0_BLOCK\":64,\"num_warps\":8,"
			       "\"num_stages\":3},\"role\":\"coder\",\"name\":\"x-up\",\"strategy\":\"coder: x-up\"}");
		json_t *want = J("{\"XBLOCK\":1,\"YBLOCK\":1,\"R0_BLOCK\":32,\"num_warps\":8,\"num_stages\":1}");
		struct agent_try tr[2] = { { 0, c[0], "fail", "perf", NULL, 0.9, 0, 0 },
					   { 4, bc, "fail", "static", "static: does not build: x", 0, 0, 0 } };
		struct agent_request rq2 = { .kernel = &slow, .cfg = &cfg, .index = 2, .traj = tr, .ntraj = 2, .memory = memory, .scope = "test.kopt" };
		TAP_OK(agent_propose(&rq2, &rp) == 0 && rp.candidate &&
		       json_equal(json_object_get(rp.candidate, "config"), want) &&
		       json_integer_value(json_object_get(rp.candidate, "repair_of")) == 4 &&
		       !strcmp(json_string_value(json_object_get(rp.candidate, "name")), "repair"),
		       "debugger: blocks halved down to 1, warps kept, one stage, repair_of the failed candidate's index");
		json_t *fixed = rp.candidate ? json_incref(rp.candidate) : NULL;
		agent_reply_release(&rp);
		static const char *const gates[] = { "static", "static", "correctness" };
		static const char *const reasons[] = { "static: does not build: x", "static: forbidden call", "static: does not build" };
		int none = 0;
		for (int v = 0; v < 3; v++) {
			struct agent_try tv[2] = { tr[0], { 5, v == 0 ? fixed : bc, "fail", gates[v], reasons[v], 0, 0, 0 } };
			struct agent_request rq3 = { .kernel = &slow, .cfg = &cfg, .index = 2, .traj = tv, .ntraj = 2, .memory = memory, .scope = "test.kopt" };
			if (agent_propose(&rq3, &rp) == 0 &&
			    !(rp.candidate && !strcmp(json_string_value(json_object_get(rp.candidate, "role")), "debugger")))
				none++;
			agent_reply_release(&rp);
		}
		TAP_IS_INT(none, 3, "debugger: no repair of a repair, of a static failure that built, or of another gate's failure");
		json_decref(fixed);
		json_decref(want);
		json_decref(bc);
	}

	/* persistent reductions: no R0_BLOCK ever */
	json_t *per = J("{\"XBLOCK\":1,\"num_warps\":8,\"num_stages\":1}");
	struct agent_kernel pk = { "ln", "triton_per_fused_0", "persistent_reduction", NULL, per, slow_row, NULL, NULL, 0, 0, NULL };
	json_t *pc[64] = { 0 };
	int pn = run_search(&pk, 12, memory, pc, all_fail);
	int has_r = 0;
	for (int i = 0; i < pn; i++)
		has_r += json_object_get(json_object_get(pc[i], "config"), "R0_BLOCK") != NULL;
	TAP_OK(pn >= 6 && has_r == 0, "persistent reduction: candidates without R0_BLOCK");
	for (int i = 0; i < pn; i++)
		json_decref(pc[i]);

	/* source edits: eviction hints, only when the source has them */
	struct agent_kernel sk = slow;
	sk.source = "@triton.jit\ndef triton_red_fused_1(in_ptr0):\n    x = tl.load(in_ptr0, eviction_policy='evict_last')\n";
	json_t *sc[64] = { 0 };
	int sn = run_search(&sk, 16, memory, sc, all_fail);
	int edits = 0, pinned = 0;
	for (int i = 0; i < sn; i++) {
		bool e = json_is_string(json_object_get(sc[i], "source")) &&
			 strstr(json_string_value(json_object_get(sc[i], "source")), "evict_first") != NULL;
		edits += e;
		/* nothing passed: at the kernel's own config */
		pinned += e && json_equal(json_object_get(sc[i], "config"), sk.config);
	}
	TAP_IS_INT(edits, 1, "coder: one eviction-hint rewrite of the source");
	TAP_IS_INT(pinned, 1, "... pinned at the kernel's own config where no candidate passed");
	for (int i = 0; i < sn; i++)
		json_decref(sc[i]);

	/* the persistent edit, on Inductor's softmax kernel for the examples:
	 * candidate 0, its own config (the whole row in one block) */
	const char *top = getenv("top_srcdir");
	char *fxp = xasprintf("%s/tests/fixtures/kernels/softmax.py", top ? top : ".");
	struct strbuf fx = STRBUF_INIT;
	if (strbuf_read_file(&fx, fxp) < 0)
		strbuf_addstr(&fx, "(missing)");
	free(fxp);
	json_t *smc = J("{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":16,\"num_stages\":1}");
	struct agent_kernel smk = { "softmax", "triton_red_fused__softmax_exp_prepare_softmax_online_sub_0", "reduction",
				    fx.buf, smc, slow_row, NULL, NULL, 0, 0, NULL };
	json_t *pcs[64] = { 0 };
	int pcn = run_search(&smk, 3, memory, pcs, all_fail);
	const json_t *pcfg = pcn > 0 ? json_object_get(pcs[0], "config") : NULL;
	TAP_OK(pcn > 0 && json_is_string(json_object_get(pcs[0], "source")) &&
	       strstr(json_string_value(json_object_get(pcs[0], "strategy")), "coder: persistent") &&
	       json_integer_value(json_object_get(pcfg, "R0_BLOCK")) == 16384 &&
	       json_integer_value(json_object_get(pcfg, "XBLOCK")) == 1 &&
	       json_integer_value(json_object_get(pcfg, "num_warps")) == 16,
	       "coder: a softmax that reads its row twice gets the persistent edit first, R0_BLOCK 16384, 16 warps");
	int later = 0;
	for (int i = 1; i < pcn; i++)
		later += json_is_string(json_object_get(pcs[i], "source"));
	TAP_OK(pcn == 3 && later == 0, "... once: the next candidates are config moves on Inductor's source");
	persist_configs(&smk, memory);
	/* the screen timed the same transform (persist=on) at that config and
	 * found it no faster: the coder does not send it; at another config it
	 * would */
	json_t *psl = json_array();
	json_array_append(psl, (json_t *)pcfg);
	json_t *other = J("[{\"XBLOCK\":1,\"R0_BLOCK\":16384,\"num_warps\":8,\"num_stages\":1}]");
	const json_t *lists[2] = { psl, other };
	bool sent[2] = { false, false };
	json_t *carried = NULL;
	for (int v = 0; v < 2; v++) {
		struct agent_try pt[4];
		int np = 0;
		for (int i = 0; i < 4; i++) {
			struct agent_request sq = { .kernel = &smk, .cfg = &cfg, .index = i, .traj = pt, .ntraj = (size_t)i, .memory = memory, .scope = "test.kopt", .screen_slower_persist = i == 0 ? lists[v] : NULL };
			struct agent_reply sp;
			if (agent_propose(&sq, &sp) < 0 || !sp.candidate) {
				agent_reply_release(&sp);
				break;
			}
			sent[v] |= json_is_string(json_object_get(sp.candidate, "source"));
			if (v == 0 && i == 0)
				carried = json_incref(json_object_get(sp.candidate, "screen_slower_persist"));
			pt[np++] = (struct agent_try){ i, sp.candidate, "fail", "perf", NULL, 0.9, 0, 0 };
			sp.candidate = NULL;
			agent_reply_release(&sp);
		}
		for (int i = 0; i < np; i++)
			json_decref((json_t *)pt[i].candidate);
	}
	TAP_OK(!sent[0], "coder: the persistent edit the screen found no faster at its config is not sent");
	TAP_OK(carried && json_equal(carried, psl), "... candidate 0 carries those configs for the rest");
	TAP_OK(sent[1], "... found no faster at another config only: it is sent");
	json_decref(carried);
	json_decref(psl);
	json_decref(other);
	for (int i = 0; i < pcn; i++)
		json_decref(pcs[i]);
	/* when it passes, the tuner tries its warps and stages on its source
	 * before the plan's config moves on Inductor's */
	pcn = run_search(&smk, 5, memory, pcs, first_passes);
	int on_src = 0;
	for (int i = 1; i < 4 && i < pcn; i++)
		on_src += json_is_string(json_object_get(pcs[i], "source")) &&
			  strcmp(json_string_value(json_object_get(pcs[i], "source")), json_string_value(json_object_get(pcs[0], "source"))) == 0 &&
			  json_integer_value(json_object_get(json_object_get(pcs[i], "config"), "R0_BLOCK")) == 16384;
	TAP_OK(pcn == 5 && on_src == 3 &&
	       json_integer_value(json_object_get(json_object_get(pcs[1], "config"), "num_warps")) == 32 &&
	       json_integer_value(json_object_get(json_object_get(pcs[2], "config"), "num_warps")) == 8,
	       "tuner: a passing persistent edit gets warps 32, 8 and two stages on its own source, block kept");
	TAP_OK(pcn == 5 && json_is_null(json_object_get(pcs[4], "source")), "... then the plan goes on");
	for (int i = 0; i < pcn; i++)
		json_decref(pcs[i]);
	json_decref(smc);
	strbuf_release(&fx);

	/* long-term memory: outcomes re-rank the plan for the same feature class */
	for (int i = 0; i < 4; i++) {
		json_t *cand = J("{\"strategy\":\"coder: warps-up (XBLOCK=1)\"}");
		TAP_OK(agent_learn(memory, "first.kopt", NULL, &slow, cand, true, 1.4) == 0, "learn: an outcome is appended");
		json_decref(cand);
		cand = J("{\"strategy\":\"coder: r-down (XBLOCK=1)\"}");
		agent_learn(memory, "first.kopt", NULL, &slow, cand, false, 0);
		json_decref(cand);
	}
	struct memory mem;
	char *features = agent_features(&slow);
	memory_load(&mem, memory, features, NULL);
	const struct mem_stat *ws = memory_get(&mem, "warps-up");
	TAP_OK(ws && ws->tries == 4 && ws->wins == 4, "memory: four wins of warps-up for this feature class");
	memory_release(&mem);
	free(features);
	json_t *p3 = agent_builtin_plan(&slow, memory, "other.kopt", NULL);
	json_t *p3own = agent_builtin_plan(&slow, memory, "first.kopt", NULL);
	TAP_OK(json_equal(p3own, p1), "planner: the scope that learned it plans as before");
	json_decref(p3own);
	TAP_IS_STR(json_string_value(json_array_get(p3, 0)), "warps-up", "planner: memory moves what paid to the front");
	json_t *p4 = agent_builtin_plan(&pk, memory, "other.kopt", NULL);
	TAP_IS_STR(json_string_value(json_array_get(p4, 0)), "warps-down", "planner: another feature class keeps its prior");
	FILE *f = fopen(memory, "a");
	fputs("{\"f\":\"torn", f);
	fclose(f);
	json_t *p5 = agent_builtin_plan(&slow, memory, "other.kopt", NULL);
	TAP_OK(json_equal(p3, p5), "memory: a torn last line is ignored");
	json_decref(p3);
	json_decref(p4);
	json_decref(p5);

	/* long-term memory across specs: a second spec with a similar kernel
	 * reaches its best candidate sooner than the first did */
	char *mem2 = xasprintf("%s/memory2.jsonl", dir);
	json_t *cfg2 = J("{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":8,\"num_stages\":1}");
	json_t *row2 = J("{\"ns_per_call\":300000,\"share\":0.8,\"bytes\":1073741824,\"frac_peak\":0.5}");
	struct agent_kernel ka = { "spec1/softmax", "triton_red_fused__softmax_0", "reduction", NULL, cfg2, row2, NULL, NULL, 0, 0, NULL };
	struct agent_kernel kb = { "spec2/logsoftmax", "triton_red_fused__log_softmax_0", "reduction", NULL, cfg2, row2, NULL, NULL, 0, 0, NULL };
	int first = search_and_learn(&ka, mem2, "spec1.kopt", 8);
	int again = search_and_learn(&ka, mem2, "spec1.kopt", 8);
	int second = search_and_learn(&kb, mem2, "spec2.kopt", 8);
	TAP_IS_INT(again, first, "memory: a spec's own lessons do not change its plans (order-independent builds)");
	tap_diag("first spec's best at candidate %d, second spec's at candidate %d", first, second);
	TAP_OK(first > 0 && second >= 0 && second < first,
	       "memory: the second spec reaches its best in fewer candidates (%d < %d)", second, first);
	unlink(mem2);
	free(mem2);

	/* the reduction's length is a feature: a pooling window's lessons (a
	 * short reduction) do not rank a long row's plan, as they did on the H200 */
	struct agent_kernel pool = { "spec1/avgpool", "triton_red_fused_avg_pool2d_0", "reduction",
				     "def k(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK, R0_BLOCK):\n"
				     "    xnumel = 2214144\n    r0_numel = 121\n    pass\n", cfg2, row2, NULL, NULL, 0, 0, NULL };
	struct agent_kernel wide = { "spec2/softmax_wide", "triton_red_fused__softmax_0", "reduction",
				     "def k(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK, R0_BLOCK):\n"
				     "    xnumel = 4096\n    r0_numel = 32768\n    pass\n", cfg2, row2, NULL, NULL, 0, 0, NULL };
	struct agent_kernel rows = wide;
	rows.source = "def k(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK, R0_BLOCK):\n"
		      "    xnumel = 8192\n    r0_numel = 16384\n    pass\n";
	char *fp = agent_features(&pool), *fw = agent_features(&wide), *fr = agent_features(&rows);
	char *fn = agent_features(&ka);
	TAP_IS_STR(fp, "reduction/looped/r6/b30", "features: a pooling window of 121 is a short reduction");
	TAP_IS_STR(fw, "reduction/looped/r14/b30", "features: rows of 32768 are a long one");
	TAP_IS_STR(fr, fw, "features: rows of 16384 and 32768 share a class");
	TAP_IS_STR(fn, "reduction/looped/b30", "features: without the source, no length");
	free(fp);
	free(fw);
	free(fr);
	free(fn);
	char *mem3 = xasprintf("%s/memory3.jsonl", dir);
	json_t *before = agent_builtin_plan(&wide, mem3, "spec2.kopt", NULL);
	for (int i = 0; i < 4; i++) {
		json_t *cand = J("{\"strategy\":\"coder: x-up (XBLOCK=2)\"}");
		agent_learn(mem3, "spec1.kopt", NULL, &pool, cand, true, 1.99);
		json_decref(cand);
	}
	json_t *after = agent_builtin_plan(&wide, mem3, "spec2.kopt", NULL);
	json_t *pooled = agent_builtin_plan(&pool, mem3, "spec2.kopt", NULL);
	TAP_OK(json_equal(before, after), "memory: a pooling kernel's x-up wins leave a long row's plan as it was");
	TAP_IS_STR(json_string_value(json_array_get(pooled, 0)), "x-up", "memory: and move x-up first for pooling-like kernels");
	json_decref(before);
	json_decref(after);
	json_decref(pooled);
	unlink(mem3);
	free(mem3);

	/* lessons carry as launch configs in the problem's terms: on the H200,
	 * warps-up on rows of 16384 (R0_BLOCK 2048) won and r-down4 lost; on
	 * rows of 32768 that start at R0_BLOCK 16384 with 32 warps, r-down4
	 * leads to the shape that won (an eighth of the row, 32 warps) */
	json_t *c16 = J("{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":16,\"num_stages\":1}");
	json_t *c32 = J("{\"XBLOCK\":1,\"R0_BLOCK\":16384,\"num_warps\":32,\"num_stages\":1}");
	struct agent_kernel r16 = rows, r32 = wide;
	r16.config = c16;
	r32.config = c32;
	json_t *won = J("{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":32}");
	char *sh = agent_shape(won, rows.source);
	TAP_IS_STR(sh, "XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1",
		   "shape: the reduction block as a fraction of the row, stages 1 when unset");
	free(sh);
	char *mem4 = xasprintf("%s/memory4.jsonl", dir);
	char *why0 = NULL, *why1 = NULL;
	json_t *fresh32 = agent_builtin_plan(&r32, mem4, "spec2.kopt", &why0);
	TAP_IS_STR(why0, "planner: the built-in order (no lessons from other specs for reduction/looped/r14/b30)",
		   "planner: says when no lesson ranked the plan");
	struct {
		const char *cand;
		bool pass;
		double x;
	} lessons[] = {
		{ "{\"strategy\":\"coder: warps-up\",\"source\":null,\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":32,\"num_stages\":1}}", true, 1.07 },
		{ "{\"strategy\":\"coder: r-down4\",\"source\":null,\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":512,\"num_warps\":16,\"num_stages\":1}}", false, 0 },
		{ "{\"strategy\":\"coder: persistent\",\"source\":\"def k(): pass\",\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":16384,\"num_warps\":16,\"num_stages\":1}}", false, 0 },
	};
	for (size_t i = 0; i < sizeof lessons / sizeof *lessons; i++) {
		json_t *cand = J(lessons[i].cand);
		agent_learn(mem4, "spec1.kopt", NULL, &r16, cand, lessons[i].pass, lessons[i].x);
		json_decref(cand);
	}
	struct strbuf mt = STRBUF_INIT;
	strbuf_read_file(&mt, mem4);
	TAP_OK(strstr(mt.buf, "\"s\":\"warps-up\",\"v\":\"pass\",\"x\":1.07") != NULL &&
	       strstr(mt.buf, ",\"c\":\"XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1\"}") != NULL,
	       "memory: a config-only lesson records its shape");
	TAP_OK(strstr(mt.buf, "\"s\":\"persistent\",\"v\":\"fail\",\"x\":0.0}") != NULL,
	       "memory: a source edit's lesson has no shape");
	strbuf_release(&mt);
	json_t *learned32 = agent_builtin_plan(&r32, mem4, "spec2.kopt", &why1);
	const char *lead = "planner: 3 lessons from other specs for reduction/looped/r14/b30; first: r-down4 (the config "
			   "it leads to, XBLOCK=1 R0_BLOCK=1/8 num_warps=32 num_stages=1, passed 1 of 1, 1.070x on average), ";
	TAP_OK(why1 && strncmp(why1, lead, strlen(lead)) == 0 && !strstr(why1, "warps-up"),
	       "planner: says what ranked the first moves, and leaves out a move that does not apply (%s)", why1);
	/* each move named is followed by what ranked it: a lesson or none */
	int named = 0;
	for (const char *p = why1; p && (p = strstr(p, " (")); p++)
		named += !strncmp(p, " (no lesson: ", 13) || !strncmp(p, " (passed ", 9) ||
			 !strncmp(p, " (the config it leads to, ", 26);
	TAP_OK(named == 3, "planner: the first three moves that apply are named, no more (%d)", named);
	free(why0);
	free(why1);
	TAP_OK(strcmp(json_string_value(json_array_get(fresh32, 0)), "r-down4") != 0,
	       "planner: without lessons, r-down4 is not first for rows of 32768 (%s is)",
	       json_string_value(json_array_get(fresh32, 0)));
	TAP_IS_STR(json_string_value(json_array_get(learned32, 0)), "r-down4",
		   "planner: the move that reaches the winning shape goes first, though the move's name lost");
	json_decref(fresh32);
	json_decref(learned32);
	json_decref(won);
	json_decref(c16);
	json_decref(c32);
	unlink(mem4);
	free(mem4);
	json_decref(cfg2);
	json_decref(row2);

	/* the screen's configs first (rules/screen.c): fastest first, the
	 * kernel's own skipped; candidate 0 carries them, then the plan */
	json_t *scr = J("[{\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":4096,\"num_warps\":16,\"num_stages\":1},\"speedup\":1.3},"
			"{\"config\":{\"XBLOCK\":2,\"R0_BLOCK\":1024,\"num_warps\":8,\"num_stages\":1},\"speedup\":1.25},"
			"{\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":16,\"num_stages\":1},\"speedup\":1.125},"
			"{\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":4096,\"num_warps\":16,\"num_stages\":2},\"speedup\":null}]");
	struct agent_try st[8];
	json_t *scand[8] = { 0 };
	char *reasons[8] = { 0 }, *digests[8] = { 0 };
	for (int i = 0; i < 8; i++) {
		/* later candidates read the configs in candidate 0, the times here */
		struct agent_request sr = { .kernel = &slow, .cfg = &cfg, .index = i, .traj = st, .ntraj = (size_t)i, .memory = memory, .scope = "test.kopt", .screen = i < 2 ? scr : NULL };
		struct agent_reply rp8;
		digests[i] = agent_context_digest(&sr);
		if (agent_propose(&sr, &rp8) < 0 || !rp8.candidate) {
			agent_reply_release(&rp8);
			break;
		}
		scand[i] = rp8.candidate;
		reasons[i] = rp8.reason;
		st[i] = (struct agent_try){ i, scand[i], i == 1 ? "pass" : "fail", i == 1 ? NULL : "perf", "", i == 1 ? 1.2 : 0.9, 0, 0 };
	}
	TAP_IS_STR(json_string_value(json_object_get(scand[0], "strategy")), "tuner: screen (XBLOCK=2 R0_BLOCK=1024 num_warps=8 num_stages=1)",
		   "screen: candidate 0 is its fastest config but the kernel's own");
	TAP_IS_STR(reasons[0], "screen: XBLOCK=2 R0_BLOCK=1024 num_warps=8 num_stages=1 (1.250x alone)",
		   "... its reason gives the time alone");
	TAP_OK(json_array_size(json_object_get(scand[0], "screen")) == 4 && json_array_size(json_object_get(scand[0], "plan")) > 0,
	       "... it carries the screen's configs and the plan");
	TAP_IS_STR(json_string_value(json_object_get(scand[1], "strategy")), "tuner: screen (XBLOCK=1 R0_BLOCK=2048 num_warps=16 num_stages=1)",
		   "screen: candidate 1 is the next, read from candidate 0");
	TAP_IS_STR(reasons[1], "screen: XBLOCK=1 R0_BLOCK=2048 num_warps=16 num_stages=1 (1.125x alone)",
		   "... with its time alone from the screen");
	TAP_IS_STR(reasons[2], "screen: XBLOCK=1 R0_BLOCK=4096 num_warps=16 num_stages=2",
		   "screen: candidate 2, the last config; no time where the request has none");
	TAP_OK(scand[3] && strncmp(json_string_value(json_object_get(scand[3], "strategy")), "coder: ", 7) == 0 && !reasons[3],
	       "then the plan goes on (%s)", scand[3] ? json_string_value(json_object_get(scand[3], "strategy")) : "none");
	int sdups = 0;
	for (int i = 0; i < 8 && scand[i]; i++)
		for (int j = 0; j < i; j++)
			sdups += json_is_null(json_object_get(scand[i], "source")) && json_is_null(json_object_get(scand[j], "source")) &&
				 json_equal(json_object_get(scand[i], "config"), json_object_get(scand[j], "config"));
	TAP_IS_INT(sdups, 0, "the plan skips what the screen proposed (r-down's config was the screen's third)");
	TAP_OK(strstr(digests[1], ";screen") && strstr(digests[2], ";screen") && !strstr(digests[1], ";best="),
	       "digest: a screened config depends on candidate 0 and the tried, not on the best");
	TAP_OK(!strstr(digests[3], ";screen") && strstr(digests[3], "plan="), "digest: after the screen's configs, as before");
	/* the chain after a screen of best configs, to its end: candidate 0
	 * alone carries the screen, and every later candidate reads it there,
	 * so no random jumps follow the plan and the descent */
	{
		struct agent_try ct[64];
		json_t *cc[64] = { 0 };
		char *end = NULL;
		int nc = 0, cj = 0;
		for (int i = 0; i < 64; i++) {
			struct agent_request sr = { .kernel = &slow, .cfg = &cfg, .index = i, .traj = ct, .ntraj = (size_t)i, .memory = memory, .scope = "test.kopt", .screen = i == 0 ? scr : NULL };
			struct agent_reply r;
			if (agent_propose(&sr, &r) < 0 || !r.candidate) {
				end = r.reason;
				r.reason = NULL;
				agent_reply_release(&r);
				break;
			}
			cc[nc++] = r.candidate;
			free(r.reason);
			cj += strcmp(json_string_value(json_object_get(r.candidate, "name")), "random") == 0;
			ct[i] = (struct agent_try){ i, r.candidate, "fail", "perf", "", 0.9, 0, 0 };
		}
		TAP_OK(nc > 1 && nc < 64 && cj == 0 && end && strstr(end, "no random jumps"),
		       "screened by its best configs: the chain ends without random jumps, saying why (%d candidates, %d jumps: %s)",
		       nc, cj, end ? end : "no reason");
		free(end);
		for (int i = 0; i < nc; i++)
			json_decref(cc[i]);
	}
	struct agent_request plain = { .kernel = &slow, .cfg = &cfg, .index = 0, .memory = memory, .scope = "test.kopt" };
	struct agent_reply rp0;
	TAP_OK(agent_propose(&plain, &rp0) == 0 && rp0.candidate && !rp0.reason &&
	       !json_object_get(rp0.candidate, "screen") &&
	       strncmp(json_string_value(json_object_get(rp0.candidate, "strategy")), "coder: ", 7) == 0,
	       "not screened: candidate 0 is the plan's, as it was");
	/* the configs the screen found no faster alone: no strategy proposes
	 * them, candidate 0 carries them, and no random jumps follow the plan
	 * and the descent */
	json_t *slowc = J("[]");
	json_array_append(slowc, json_object_get(rp0.candidate, "config"));
	struct agent_try sl[32];
	json_t *slcand[32] = { 0 };
	char *slast = NULL;
	int nsl = 0, resent = 0, jumps = 0;
	for (int i = 0; i < 32; i++) {
		struct agent_request sr = { .kernel = &slow, .cfg = &cfg, .index = i, .traj = sl, .ntraj = (size_t)i, .memory = memory, .scope = "test.kopt", .screen_slower = i == 0 ? slowc : NULL };
		struct agent_reply rps;
		if (agent_propose(&sr, &rps) < 0 || !rps.candidate) {
			slast = rps.reason;
			rps.reason = NULL;
			agent_reply_release(&rps);
			break;
		}
		slcand[nsl++] = rps.candidate;
		free(rps.reason);
		resent += json_is_null(json_object_get(rps.candidate, "source")) &&
			 json_equal(json_object_get(rps.candidate, "config"), json_array_get(slowc, 0));
		jumps += strcmp(json_string_value(json_object_get(rps.candidate, "name")), "random") == 0;
		sl[i] = (struct agent_try){ i, rps.candidate, "fail", "perf", "", 0.9, 0, 0 };
	}
	TAP_OK(nsl > 0 && json_equal(json_object_get(slcand[0], "screen_slower"), slowc),
	       "screen slower: candidate 0 carries the configs the screen found no faster");
	TAP_IS_INT(resent, 0, "... and no candidate proposes one of them again (the plan's first move was)");
	TAP_OK(jumps == 0, "... and no random jumps after a screen (%d candidates, %d jumps)", nsl, jumps);
	TAP_OK(nsl < 32 && slast && strstr(slast, "no random jumps"), "... the chain ends, saying why (%s)",
	       slast ? slast : "no reason");
	free(slast);
	for (int i = 0; i < nsl; i++)
		json_decref(slcand[i]);
	json_decref(slowc);
	agent_reply_release(&rp0);
	for (int i = 0; i < 8; i++) {
		json_decref(scand[i]);
		free(reasons[i]);
		free(digests[i]);
	}
	json_decref(scr);

	for (int i = 0; i < n; i++)
		json_decref(c[i]);
	json_decref(p1);
	json_decref(red);
	json_decref(per);
	json_decref(fast_row);
	json_decref(rms_row);
	json_decref(slow_row);
	unlink(memory);
	rmdir(dir);
	free(memory);
	test_launch_equal();
	test_launch_ranges();
	test_features_shape();
	test_candidate();
	test_screened();
	test_plan_prior();
	TAP_OK(proposed > 20 && proposed_not_0 == 0, "agent_propose: status 0 with every candidate of the searches "
	       "above (%d candidates, %d other statuses)", proposed, proposed_not_0);
	return tap_done();
}
