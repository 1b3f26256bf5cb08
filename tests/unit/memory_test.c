/*
 * tests/unit/memory_test.c: the long-term memory's arithmetic and the
 * planner's ranking on hand-computed cases (agents/memory.h, agents/agent.h).
 *
 * memory_score(strategy, prior) = (wins + 2 prior) / (tries + 2)
 *                                 + 2 * (sum of log(speedup) over wins) / wins
 * (0 for the second term without a win). Every expected value below is
 * worked out from the lessons written in the case, not taken from the code.
 * The planner ranks a kernel's strategies by that score, the prior going
 * from 0.6 for the first strategy of the built-in order down to 0.3 for the
 * last (12 strategies for a pointwise kernel: 0.6 - 0.3 i / 11), and keeps
 * the built-in order between equal scores. A strategy that won before
 * comes first, so candidate 0 shows each launch-config move: a block size
 * or warp count doubled (up), halved (down), quartered (down4) or times
 * four (up4), one pipeline stage more (stages-up).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../agents/agent.h"
#include "../../agents/builtin.h"
#include "../../agents/features.h"
#include "../../agents/memory.h"
#include "../tap.h"

static char dir[] = "/tmp/kopt-memory-XXXXXX";

static int near(double got, double want, const char *name)
{
	if (tap_ok(fabs(got - want) <= 1e-12 * fabs(want) + 1e-15, "%s", name))
		return 1;
	tap_diag("got %.17g, want %.17g", got, want);
	return 0;
}

static char *fresh(const char *name)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		abort();
	unlink(p);
	return p;
}

static void test_score(void)
{
	char *m = fresh("score.jsonl");
	const char *cls = "pointwise/flat/b26";
	/* b: two wins (1.2x, 1.5x) and a loss */
	memory_append(m, "a.kopt", cls, "b", NULL, NULL, 1, 1.2);
	/* the file it made is read and written by its owner and read by
	 * others, as any file the umask leaves (0666 less the umask) */
	{
		mode_t um = umask(022);
		umask(um);
		struct stat st;
		int made = stat(m, &st) == 0;
		unsigned mode = made ? (unsigned)(st.st_mode & 0777) : 0;
		TAP_OK(made && mode == (0666 & ~um), "a memory file made by its first lesson has mode 0666 less the umask (%o)", mode);
	}
	memory_append(m, "a.kopt", cls, "b", NULL, NULL, 1, 1.5);
	memory_append(m, "a.kopt", cls, "b", NULL, NULL, 0, 0);
	/* c: two losses */
	memory_append(m, "a.kopt", cls, "c", NULL, NULL, 0, 0);
	memory_append(m, "a.kopt", cls, "c", NULL, NULL, 0, 0);
	/* d: one win at 2x */
	memory_append(m, "a.kopt", cls, "d", NULL, NULL, 1, 2.0);
	/* e: a win at 1.1x, and a loss that measured 3x (a failed gate's time
	 * counts for nothing) */
	memory_append(m, "a.kopt", cls, "e", NULL, NULL, 1, 1.1);
	memory_append(m, "a.kopt", cls, "e", NULL, NULL, 0, 3.0);
	/* g: a win whose speedup was not finite (written 0) beside one at
	 * 1.3x: two wins, the one speedup's gain */
	memory_append(m, "a.kopt", cls, "g", NULL, NULL, 1, NAN);
	memory_append(m, "a.kopt", cls, "g", NULL, NULL, 1, 1.3);
	/* another class and the asking spec's own lessons count nowhere */
	memory_append(m, "a.kopt", "reduction/looped/r14/b26", "b", NULL, NULL, 1, 9.0);
	memory_append(m, "own.kopt", cls, "b", NULL, NULL, 1, 9.0);
	memory_append(m, "own.kopt", cls, "f", NULL, NULL, 1, 9.0);

	struct memory mem;
	TAP_OK(memory_load(&mem, m, cls, "own.kopt") == 0, "memory: loads");
	const struct mem_stat *b = memory_get(&mem, "b");
	TAP_OK(b && b->tries == 3 && b->wins == 2, "memory: b has 3 tries, 2 wins (not the other class's, not its own spec's)");
	near(b ? b->gain : 0, log(1.2) + log(1.5), "memory: b's gain is the sum of its wins' log speedups");
	TAP_OK(memory_get(&mem, "f") == NULL, "memory: a strategy only the asking spec tried is unknown to it");
	const struct mem_stat *e = memory_get(&mem, "e");
	TAP_OK(e && e->tries == 2 && e->wins == 1, "memory: a loss is a try, not a win");
	near(e ? e->gain : 0, log(1.1), "memory: a loss's measured speedup is not gain");
	const struct mem_stat *g = memory_get(&mem, "g");
	TAP_OK(g && g->tries == 2 && g->wins == 2, "memory: a win without a finite speedup is a win");
	near(g ? g->gain : 0, log(1.3), "memory: ... and adds no gain (its recorded 0 is no speedup)");

	/* (2 + 2 * 0.5) / (3 + 2) = 0.6; 2 * (log 1.2 + log 1.5) / 2 = log 1.8 */
	near(memory_score(&mem, "b", 0.5), 0.6 + 0.58778666490211900819, "score: b at prior 0.5 = 0.6 + log 1.8");
	/* (0 + 1.2) / 4 = 0.3, no win: no gain term */
	near(memory_score(&mem, "c", 0.6), 0.3, "score: c at prior 0.6 = 1.2 / 4");
	/* (1 + 0.6) / 3 + 2 log 2 */
	near(memory_score(&mem, "d", 0.3), 1.919627694453224, "score: d at prior 0.3 = 1.6 / 3 + 2 log 2");
	/* (1 + 1) / 4 + 2 log 1.1 */
	near(memory_score(&mem, "e", 0.5), 0.6906203596086499, "score: e at prior 0.5 = 0.5 + 2 log 1.1");
	near(memory_score(&mem, "nothing", 0.42), 0.42, "score: no lesson: the prior");
	memory_release(&mem);

	/* without exclusion the spec's own lessons count */
	memory_load(&mem, m, cls, NULL);
	b = memory_get(&mem, "b");
	TAP_OK(b && b->tries == 4 && b->wins == 3, "memory: no scope left out: 4 tries of b");
	memory_release(&mem);
	free(m);
}

/* the plan as one line of names */
static char *plan_line(const struct agent_kernel *k, const char *memory)
{
	json_t *p = agent_builtin_plan(k, memory, "other.kopt", NULL);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	json_t *v;
	json_array_foreach(p, i, v)
		strbuf_addf(&sb, "%s%s", i ? " " : "", json_string_value(v));
	json_decref(p);
	return strbuf_detach(&sb);
}

static void test_plan(void)
{
	json_t *cfg = json_loads("{\"XBLOCK\": 1024, \"num_warps\": 4, \"num_stages\": 1}", 0, NULL);
	json_t *row = json_loads("{\"ns_per_call\": 50000, \"bytes\": 67108864, \"frac_peak\": 0.4}", 0, NULL);
	struct agent_kernel k = { "m", "triton_poi_fused_add_0", "pointwise", NULL, cfg, row, NULL, NULL, 0, 0, NULL };
	char *cls = agent_features(&k);
	const char *builtin = "x-up warps-up x-up4 x-down warps-down y-up y-down x-up-warps-up y-up-x-down "
			      "x-down-warps-down stages-up evict-first";

	char *m = fresh("plan.jsonl");
	char *got = plan_line(&k, m);
	TAP_IS_STR(got, builtin, "plan: no memory, the built-in order");
	free(got);

	/* x-down (4th, prior 0.6 - 0.3 * 3 / 11) won once at 1.5x:
	 * (1 + 2 * 0.51818) / 3 + 2 log 1.5 = 1.49 beats every prior (0.6 at most) */
	memory_append(m, "first.kopt", cls, "x-down", NULL, NULL, 1, 1.5);
	got = plan_line(&k, m);
	TAP_IS_STR(got, "x-down x-up warps-up x-up4 warps-down y-up y-down x-up-warps-up y-up-x-down "
			"x-down-warps-down stages-up evict-first", "plan: a strategy that won moves first");
	free(got);
	/* the lesson is the asking spec's own: not read */
	json_t *own = agent_builtin_plan(&k, m, "first.kopt", NULL);
	char *ownl = json_dumps(own, JSON_COMPACT);
	TAP_OK(ownl && strstr(ownl, "[\"x-up\",\"warps-up\"") == ownl, "plan: a spec's own lessons do not rank its plan");
	free(ownl);
	json_decref(own);

	/* x-up (first, prior 0.6) lost twice: (0 + 1.2) / (2 + 2) = 0.3, the
	 * last strategy's prior (0.6 - 0.3): a tie, and the built-in order
	 * stays between the two */
	char *m2 = fresh("tie.jsonl");
	memory_append(m2, "first.kopt", cls, "x-up", NULL, NULL, 0, 0);
	memory_append(m2, "first.kopt", cls, "x-up", NULL, NULL, 0, 0);
	got = plan_line(&k, m2);
	TAP_IS_STR(got, "warps-up x-up4 x-down warps-down y-up y-down x-up-warps-up y-up-x-down x-down-warps-down "
			"stages-up x-up evict-first", "plan: a tie keeps the built-in order (x-up before evict-first)");
	free(got);

	/* learning: a lost candidate is a loss whatever it measured */
	char *m3 = fresh("learn.jsonl");
	json_t *cand = json_loads("{\"source\": null, \"config\": {\"XBLOCK\": 2048, \"num_warps\": 4, \"num_stages\": 1},"
				  " \"strategy\": \"tuner: x-up (XBLOCK=2048)\"}", 0, NULL);
	TAP_OK(agent_learn(m3, "first.kopt", NULL, &k, cand, false, 1.7) == 0, "learn: a loss is recorded");
	TAP_OK(agent_learn(m3, "first.kopt", NULL, &k, cand, true, 1.25) == 0, "learn: a win is recorded");
	struct memory mem;
	memory_load(&mem, m3, cls, NULL);
	const struct mem_stat *s = memory_get(&mem, "x-up");
	TAP_OK(s && s->tries == 2 && s->wins == 1, "learn: the loss is no win (2 tries, 1 win)");
	near(s ? s->gain : 0, log(1.25), "learn: only the win's speedup is gain");
	memory_release(&mem);
	json_decref(cand);

	free(m);
	free(m2);
	free(m3);
	free(cls);
	json_decref(cfg);
	json_decref(row);
}

/* candidate 0 for kernel k when the memory says strategy won three times */
static void move(const struct agent_kernel *k, const char *strategy, const char *want, int n)
{
	char name[64];
	snprintf(name, sizeof name, "move-%d.jsonl", n);
	char *m = fresh(name);
	char *cls = agent_features(k);
	for (int i = 0; i < 3; i++)
		memory_append(m, "first.kopt", cls, strategy, NULL, NULL, 1, 1.5);
	struct kopt_agents cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.budget = 4;
	cfg.seed = 1;
	struct agent_request rq = { .kernel = k, .cfg = &cfg, .memory = m, .scope = "other.kopt" };
	struct agent_reply rp;
	int rc = agent_propose(&rq, &rp);
	const char *st = json_string_value(json_object_get(rp.candidate, "strategy"));
	char *c = rp.candidate ? json_dumps(json_object_get(rp.candidate, "config"), JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	char want_st[64];
	snprintf(want_st, sizeof want_st, ": %s (", strategy);
	if (!TAP_OK(rc == 0 && st && strstr(st, want_st) && c && strcmp(c, want) == 0, "move %s: %s", strategy, want))
		tap_diag("got %s %s", st ? st : "(none)", c ? c : "(none)");
	free(c);
	agent_reply_release(&rp);
	free(cls);
	free(m);
}

static void test_moves(void)
{
	json_t *pw = json_loads("{\"XBLOCK\": 64, \"YBLOCK\": 32, \"num_warps\": 4, \"num_stages\": 1}", 0, NULL);
	json_t *red = json_loads("{\"XBLOCK\": 1, \"R0_BLOCK\": 1024, \"num_warps\": 8, \"num_stages\": 1}", 0, NULL);
	json_t *row = json_loads("{\"ns_per_call\": 50000, \"bytes\": 67108864, \"frac_peak\": 0.4}", 0, NULL);
	struct agent_kernel p = { "m", "triton_poi_fused_add_0", "pointwise", NULL, pw, row, NULL, NULL, 0, 0, NULL };
	struct agent_kernel r = { "m", "triton_red_fused_sum_0", "reduction", NULL, red, row, NULL, NULL, 0, 0, NULL };
	int n = 0;
	move(&p, "x-up", "{\"XBLOCK\":128,\"YBLOCK\":32,\"num_stages\":1,\"num_warps\":4}", n++);
	move(&p, "x-down", "{\"XBLOCK\":32,\"YBLOCK\":32,\"num_stages\":1,\"num_warps\":4}", n++);
	move(&p, "x-up4", "{\"XBLOCK\":256,\"YBLOCK\":32,\"num_stages\":1,\"num_warps\":4}", n++);
	move(&p, "y-up", "{\"XBLOCK\":64,\"YBLOCK\":64,\"num_stages\":1,\"num_warps\":4}", n++);
	move(&p, "y-down", "{\"XBLOCK\":64,\"YBLOCK\":16,\"num_stages\":1,\"num_warps\":4}", n++);
	move(&p, "warps-up", "{\"XBLOCK\":64,\"YBLOCK\":32,\"num_stages\":1,\"num_warps\":8}", n++);
	move(&p, "warps-down", "{\"XBLOCK\":64,\"YBLOCK\":32,\"num_stages\":1,\"num_warps\":2}", n++);
	move(&p, "stages-up", "{\"XBLOCK\":64,\"YBLOCK\":32,\"num_stages\":2,\"num_warps\":4}", n++);
	move(&p, "x-up-warps-up", "{\"XBLOCK\":128,\"YBLOCK\":32,\"num_stages\":1,\"num_warps\":8}", n++);
	move(&p, "x-down-warps-down", "{\"XBLOCK\":32,\"YBLOCK\":32,\"num_stages\":1,\"num_warps\":2}", n++);
	move(&p, "y-up-x-down", "{\"XBLOCK\":32,\"YBLOCK\":64,\"num_stages\":1,\"num_warps\":4}", n++);
	move(&r, "r-up", "{\"R0_BLOCK\":2048,\"XBLOCK\":1,\"num_stages\":1,\"num_warps\":8}", n++);
	move(&r, "r-down", "{\"R0_BLOCK\":512,\"XBLOCK\":1,\"num_stages\":1,\"num_warps\":8}", n++);
	move(&r, "r-down4", "{\"R0_BLOCK\":256,\"XBLOCK\":1,\"num_stages\":1,\"num_warps\":8}", n++);
	move(&r, "r-down-warps-down", "{\"R0_BLOCK\":512,\"XBLOCK\":1,\"num_stages\":1,\"num_warps\":4}", n++);
	move(&r, "r-up-warps-up", "{\"R0_BLOCK\":2048,\"XBLOCK\":1,\"num_stages\":1,\"num_warps\":16}", n++);
	json_decref(pw);
	json_decref(red);
	json_decref(row);
}

/* the ranking keeps the prior order among equal scores; the sort puts more
 * wins first, then more tries, then by name; shapes ("=...") are no lessons */
static void test_rank_sort(void)
{
	double score[] = { 1, 2, 2, 0.5, 2 };
	size_t order[5];
	memory_rank(order, score, 5);
	TAP_OK(order[0] == 1 && order[1] == 2 && order[2] == 4 && order[3] == 0 && order[4] == 3,
	       "rank: highest first, equal scores in their prior order (%zu %zu %zu %zu %zu)", order[0], order[1], order[2],
	       order[3], order[4]);
	struct mem_stat st[] = { { "b", 3, 1, 0 }, { "a", 3, 1, 0 }, { "=XBLOCK=1", 9, 9, 0 }, { "c", 4, 1, 0 }, { "d", 1, 2, 0 } };
	struct memory m = { st, 5, 5 };
	TAP_IS_INT(memory_lessons(&m), 11, "lessons: the tries of strategies, not of shapes");
	memory_sort(&m);
	TAP_OK(!strcmp(st[0].strategy, "=XBLOCK=1") && !strcmp(st[1].strategy, "d") && !strcmp(st[2].strategy, "c") &&
	       !strcmp(st[3].strategy, "a") && !strcmp(st[4].strategy, "b"),
	       "sort: more wins first, then more tries, then the name (%s %s %s %s %s)", st[0].strategy, st[1].strategy,
	       st[2].strategy, st[3].strategy, st[4].strategy);
}

/* a memory of 300 lessons, each of its own strategy, in 3 classes: every
 * strategy read back with its one try, across the index's growth */
static void test_many(void)
{
	char *path = NULL;
	if (asprintf(&path, "%s/many.jsonl", dir) < 0)
		return;
	int ok = 1;
	for (int i = 0; i < 300; i++) {
		char cls[16], st[16];
		snprintf(cls, sizeof cls, "c%d", i % 3);
		snprintf(st, sizeof st, "s%d", i);
		ok &= memory_append(path, "a.kopt", cls, st, NULL, NULL, i % 2, 1.5) == 0;
	}
	struct memory m;
	memory_load(&m, path, "c1", NULL);
	int right = 0;
	for (int i = 1; i < 300; i += 3) {
		char st[16];
		snprintf(st, sizeof st, "s%d", i);
		const struct mem_stat *x = memory_get(&m, st);
		right += x && x->tries == 1 && x->wins == i % 2;
	}
	TAP_OK(ok && m.n == 100 && right == 100 && !memory_get(&m, "s0"),
	       "memory: 300 strategies in 3 classes, each class's 100 read back with its try (%zu, %d)", m.n, right);
	memory_release(&m);
	free(path);
}

/* a memory of 700 lessons, each in a class of its own: every class read
 * back with its one strategy, whatever slots the index's strings took
 * before and after it grew (interned strings found again, never twice) */
static void test_many_classes(void)
{
	char *path = NULL;
	if (asprintf(&path, "%s/classes.jsonl", dir) < 0)
		return;
	int ok = 1, right = 0;
	for (int i = 0; i < 700; i++) {
		char cls[16], st[16];
		snprintf(cls, sizeof cls, "k%d", i);
		snprintf(st, sizeof st, "t%d", i);
		ok &= memory_append(path, "a.kopt", cls, st, NULL, NULL, 1, 1.5) == 0;
	}
	for (int i = 0; i < 700; i++) {
		char cls[16], st[16];
		snprintf(cls, sizeof cls, "k%d", i);
		snprintf(st, sizeof st, "t%d", i);
		struct memory m;
		memory_load(&m, path, cls, NULL);
		const struct mem_stat *x = memory_get(&m, st);
		right += m.n == 1 && x && x->tries == 1 && x->wins == 1;
		memory_release(&m);
	}
	TAP_OK(ok && right == 700, "memory: 700 classes of one lesson each, every class read back alone (%d)", right);
	free(path);
}

/* a lesson's record, field by field: the header on an empty file only,
 * then p, f, s, v and x, and c, e, h and k where the lesson has them (an
 * empty edit is none); a speedup that is not finite is written 0, a scope
 * that is NULL as "" */
static void test_record(void)
{
	char *path = fresh("record.jsonl");
	struct mem_lesson full = { .scope = "a.kopt", .features = "reduction/looped/r14/b26", .strategy = "x-up",
				   .shape = "XBLOCK=2 num_stages=1", .key = "k1", .edit = "evict0=first", .cls = "0a1b",
				   .pass = 1, .speedup = 1.25 };
	struct mem_lesson bare = { .features = "pointwise/flat/b20", .strategy = "warps-down", .edit = "", .pass = 0,
				   .speedup = NAN };
	int ok = memory_append_lesson(path, &full) == 0 && memory_append_lesson(path, &bare) == 0;
	char got[1024] = "";
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
	got[n] = '\0';
	if (f)
		fclose(f);
	const char *want = "{\"kopt-memory\":1}\n"
			   "{\"p\":\"a.kopt\",\"f\":\"reduction/looped/r14/b26\",\"s\":\"x-up\",\"v\":\"pass\",\"x\":1.25,"
			   "\"c\":\"XBLOCK=2 num_stages=1\",\"e\":\"evict0=first\",\"h\":\"0a1b\",\"k\":\"k1\"}\n"
			   "{\"p\":\"\",\"f\":\"pointwise/flat/b20\",\"s\":\"warps-down\",\"v\":\"fail\",\"x\":0.0}\n";
	TAP_OK(ok && strcmp(got, want) == 0, "memory: a lesson's record, field by field, the header once");
	if (strcmp(got, want) != 0)
		tap_diag("got:\n%s", got);
	free(path);
}

/* a compacted memory is a file like the one it replaces: the folder's
 * usual mode (0666 less the umask), no more bits */
static void test_compact_mode(void)
{
	char *path = NULL;
	if (asprintf(&path, "%s/mode.jsonl", dir) < 0)
		return;
	int ok = memory_append(path, "a.kopt", "c", "s", NULL, NULL, 1, 1.5) == 0;
	FILE *f = fopen(path, "a");
	if (f) {
		fputs("not a lesson\n", f);
		fclose(f);
	}
	mode_t old = umask(022);
	size_t kept = 0, dropped = 0;
	int rc = memory_compact(path, &kept, &dropped);
	umask(old);
	struct stat st;
	int mode = stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
	TAP_OK(ok && f && rc == 0 && kept == 1 && dropped == 1 && mode == 0644,
	       "memory: compacted under umask 022, the file is 0644 (%o; %zu kept, %zu dropped)", (unsigned)mode, kept,
	       dropped);
	free(path);
}

/* the set of verdicts seen: every key added is in it, across its growths
 * (5000 keys), and a key not added is not, in a set of 1 to 300 keys (a
 * set kept at most half full never fills, so a miss always ends) */
static void test_seen(void)
{
	struct memory_seen set = { 0 };
	char k[32];
	int in = 0, out = 0;
	for (int i = 0; i < 5000; i++) {
		snprintf(k, sizeof k, "key %d", i);
		memory_seen_add(&set, k);
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(k, sizeof k, "key %d", i);
		in += memory_seen_has(&set, k);
	}
	memory_seen_release(&set);
	for (int n = 1; n <= 300; n++) {
		struct memory_seen s2 = { 0 };
		for (int i = 0; i < n; i++) {
			snprintf(k, sizeof k, "key %d", i);
			memory_seen_add(&s2, k);
		}
		out += !memory_seen_has(&s2, "a key never added");
		memory_seen_release(&s2);
	}
	TAP_OK(in == 5000 && out == 300, "seen: 5000 keys all found across the set's growths, a key never added found in none (%d, %d)",
	       in, out);
}

/* a class asked for that no lesson filed, though its name is in the
 * memory as another kind of string (a strategy's here, with an index at
 * and past the class table's end): no lessons, nothing read past it */
static void test_unfiled_class(void)
{
	char *m = fresh("unfiled.jsonl");
	for (int i = 0; i < 40; i++) {
		char st[16];
		snprintf(st, sizeof st, "s%d", i);
		memory_append(m, "a.kopt", "pointwise/flat/b26", st, NULL, NULL, 1, 1.1);
	}
	int found = 0;
	for (int i = 0; i < 40; i++) {
		char st[16];
		snprintf(st, sizeof st, "s%d", i);
		struct memory mem;
		memory_load(&mem, m, st, NULL);
		found += memory_lessons(&mem) != 0 || memory_get(&mem, "s0") != NULL;
		memory_release(&mem);
	}
	TAP_IS_INT(found, 0, "memory: a class no lesson filed, named like 40 strategies in it, loads nothing");
	free(m);
}

/* a line without a class (f) or without a strategy (s) is no lesson: it
 * is skipped, with the lessons around it read as if it were not there */
static void test_partial_lines(void)
{
	char *m = fresh("partial.jsonl");
	memory_append(m, "a.kopt", "pointwise/flat/b26", "x-up", NULL, NULL, 1, 1.2);
	FILE *f = fopen(m, "a");
	if (f) {
		fputs("{\"p\":\"a.kopt\",\"f\":\"pointwise/flat/b26\",\"v\":\"pass\",\"x\":1.5}\n", f);
		fputs("{\"p\":\"a.kopt\",\"s\":\"x-up\",\"v\":\"pass\",\"x\":1.5}\n", f);
		fclose(f);
	}
	memory_append(m, "a.kopt", "pointwise/flat/b26", "x-up", NULL, NULL, 0, 0);
	struct memory mem;
	int rc = memory_load(&mem, m, "pointwise/flat/b26", NULL);
	const struct mem_stat *s = memory_get(&mem, "x-up");
	TAP_OK(f && rc == 0 && memory_lessons(&mem) == 2 && s && s->tries == 2 && s->wins == 1,
	       "memory: lines without a class or without a strategy are skipped, the lessons around them read (%d lessons)",
	       memory_lessons(&mem));
	memory_release(&mem);
	free(m);
}

int main(void)
{
	alarm(60); /* a lookup that never ends fails the test */
	if (!mkdtemp(dir))
		return 99;
	test_score();
	test_plan();
	test_moves();
	test_rank_sort();
	test_many();
	test_many_classes();
	test_compact_mode();
	test_record();
	test_seen();
	test_unfiled_class();
	test_partial_lines();
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", dir) >= 0 && system(cmd) != 0)
		tap_diag("cannot remove %s", dir);
	free(cmd);
	return tap_done();
}
