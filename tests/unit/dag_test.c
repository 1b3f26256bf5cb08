/*
 * tests/unit/dag_test.c: the engine's build loop on toy rules, the way
 * ninja tests its own with fake commands. The rule set here is a TEST
 * DOUBLE of koptmake's (rules/): three local rules over a graph described
 * in a table, each step writing its name to a run log when it runs.
 *
 *   leaf  its output is its source up to a '#': an edit after the '#'
 *         reruns the leaf and nothing after it (early cutoff)
 *   cat   its output is its inputs' outputs joined; an order-only input
 *         enters its key by key, a failed soft input is left out
 *   gen   a leaf whose result adds `gen` cat nodes (its expand hook), each
 *         an input of the node named in `into`
 *
 * Covered: a build and a null build, early cutoff, expansion, failure
 * propagation with and without -k, soft edges, order-only edges under -n
 * and in a build, -n, and the order of starts by priority.
 */
#include <config.h>

#include "../fixture.h"
#include "../tap.h"

#include "../../engine/dag.h"

enum { TOY_LEAF, TOY_CAT, TOY_GEN, TOY_NKINDS };

#define MAXDEPS 4

struct toy {
	const char *name;
	int kind;
	const char *src;               /* leaf, gen: the source */
	bool fail;                     /* running it fails */
	const char *deps[MAXDEPS];     /* inputs by name */
	unsigned flags[MAXDEPS];       /* their DAG_EDGE_* */
	int gen;                       /* gen: nodes its result adds */
	const char *into;              /* gen: the node that takes them as inputs */
	double prio;                   /* set when created */
};

static struct toy graph[16];
static size_t ngraph;
static const char *run_log;        /* each run appends its step's name */

static struct toy *toy_of(const struct dag_node *n)
{
	return n->ctx;
}

static void log_run(const char *name)
{
	FILE *f = fopen(run_log, "a");
	if (f) {
		fprintf(f, "%s\n", name);
		fclose(f);
	}
}

static int toy_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)d;
	(void)why;
	struct toy *t = toy_of(n);
	hash_key_str(k, "path", n->path);
	if (t)
		hash_key_str(k, "src", t->src);
	hash_key_int(k, "fail", t && t->fail);
	for (uint32_t i = 0; i < n->ndeps; i++) {
		struct dag_node *dep = n->deps[i].node;
		if (n->deps[i].flags & DAG_EDGE_ORDER)
			hash_key_hash(k, dep->path, dep->key);
		else if (dep->flags & DAG_DONE)
			hash_key_hash(k, dep->path, dep->out);
	}
	return 0;
}

/* src up to its first '#' */
static json_t *leaf_value(const char *src)
{
	return json_stringn(src, strcspn(src, "#"));
}

static int toy_start(struct rule_run *run)
{
	struct dag_node *n = run->node;
	struct toy *t = toy_of(n);
	log_run(n->path);
	if (t && t->fail) {
		run->error = xstrdup("told to fail");
		return RULE_FAIL;
	}
	if (n->kind != TOY_CAT) {
		run->stable = json_pack("{s:o}", "v", leaf_value(t->src));
		return RULE_DONE;
	}
	struct strbuf sb = STRBUF_INIT;
	for (uint32_t i = 0; i < n->ndeps; i++) {
		json_t *r = dag_result(run->dag, n->deps[i].node);
		const char *v = json_string_value(json_object_get(json_object_get(r, "stable"), "v"));
		strbuf_addf(&sb, "%s%s", i ? "+" : "", v ? v : "-");
	}
	run->stable = json_pack("{s:s}", "v", sb.buf);
	strbuf_release(&sb);
	return RULE_DONE;
}

static struct dag_node *find(struct dag *d, const char *name)
{
	for (size_t i = 0; i < d->nnodes; i++)
		if (strcmp(d->all[i]->path, name) == 0)
			return d->all[i];
	return NULL;
}

/* gen: adds its nodes "NAME.i", each an input of t->into */
static void gen_expand(struct dag *d, struct dag_node *n)
{
	struct toy *t = toy_of(n);
	struct dag_node *into = t->into ? find(d, t->into) : NULL;
	for (int i = 0; i < t->gen; i++) {
		char *path = xasprintf("%s.%d", n->path, i);
		struct dag_node *g = dag_add(d, TOY_CAT, path, NULL);
		free(path);
		dag_add_dep(g, n, 0);
		if (into)
			dag_add_dep(into, g, 0);
	}
}

static const struct rule toy_leaf = { .name = "leaf", .version = 1, .key = toy_key, .start = toy_start };
static const struct rule toy_cat = { .name = "cat", .version = 1, .key = toy_key, .start = toy_start };
static const struct rule toy_gen = {
	.name = "gen", .version = 1, .key = toy_key, .start = toy_start, .expand = gen_expand,
};
static const struct rule *const toy_table[TOY_NKINDS] = { &toy_leaf, &toy_cat, &toy_gen };

static int toy_plan(struct dag *d, char *const *targets, int ntargets)
{
	(void)targets;
	(void)ntargets;
	for (size_t i = 0; i < ngraph; i++) {
		struct dag_node *n = dag_add(d, (unsigned)graph[i].kind, graph[i].name, &graph[i]);
		n->prio = graph[i].prio;
		for (int j = 0; j < MAXDEPS && graph[i].deps[j]; j++)
			dag_add_dep(n, find(d, graph[i].deps[j]), graph[i].flags[j]);
	}
	return 0;
}

static const struct rule_set toy_rules = { .rules = toy_table, .nrules = TOY_NKINDS, .plan = toy_plan };

struct env {
	char *dir;
	kopt_spec spec;
	struct engine_opts o;
	struct fx_result r;
	char *log;     /* the runs of the last build, one name a line */
};

static void env_init(struct env *e, const char *tag)
{
	memset(e, 0, sizeof *e);
	e->dir = fx_tmpdir(tag);
	e->spec.file = "toy.kopt";
	e->spec.dir = e->dir;
	e->o.rules = &toy_rules;
	run_log = xasprintf("%s/runs", e->dir);
}

static void env_free(struct env *e)
{
	fx_rmrf(e->dir);
	free(e->dir);
	free(e->log);
	free((char *)run_log);
	fx_result_free(&e->r);
}

/* a build (dry: -n); e->log gets the names of the steps that ran */
static int build(struct env *e, bool dry, bool keep_going)
{
	struct engine_opts o = e->o;
	o.dry_run = dry;
	o.keep_going = keep_going;
	unlink(run_log);
	fx_result_free(&e->r);
	fx_run(e->dir, &e->spec, &o, NULL, NULL, 0, &e->r);
	free(e->log);
	e->log = fx_slurp(run_log);
	return e->r.status;
}

static void set_graph(const struct toy *g, size_t n)
{
	memcpy(graph, g, n * sizeof *g);
	ngraph = n;
}

static struct toy *node(const char *name)
{
	for (size_t i = 0; i < ngraph; i++)
		if (strcmp(graph[i].name, name) == 0)
			return &graph[i];
	return NULL;
}

/* where name is in the run log (a line), -1 when absent */
static int ran_at(const char *log, const char *name)
{
	int i = 0;
	size_t nl = strlen(name);
	for (const char *p = log; p && *p; i++) {
		if (strncmp(p, name, nl) == 0 && p[nl] == '\n')
			return i;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

static int lines(const char *s)
{
	return fx_count(s, "");
}

static const struct toy diamond[] = {
	{ .name = "a", .kind = TOY_LEAF, .src = "A# first" },
	{ .name = "b", .kind = TOY_LEAF, .src = "B" },
	{ .name = "ab", .kind = TOY_CAT, .deps = { "a", "b" } },
	{ .name = "top", .kind = TOY_CAT, .deps = { "ab", "b" } },
};

static void test_build_and_cutoff(void)
{
	struct env e;
	env_init(&e, "toy-build");
	set_graph(diamond, 4);
	TAP_IS_INT(build(&e, false, false), 0, "a build succeeds");
	TAP_IS_INT(lines(e.log), 4, "every step ran once");
	TAP_OK(ran_at(e.log, "a") < ran_at(e.log, "ab") && ran_at(e.log, "b") < ran_at(e.log, "ab") &&
	       ran_at(e.log, "ab") < ran_at(e.log, "top"), "inputs ran before their dependents");
	TAP_OK(strstr(e.r.out, "[4/4] cat top"), "progress counts every step ([4/4] cat top)");
	build(&e, false, false);
	TAP_IS_INT(lines(e.log), 0, "null build: nothing ran");
	TAP_OK(strstr(e.r.out, "nothing to do"), "null build says nothing to do");

	node("a")->src = "A# an edit after the mark";
	build(&e, true, false);
	TAP_OK(strstr(e.r.out, "leaf a\n") && strstr(e.r.out, "cat ab\n") && strstr(e.r.out, "3 steps would run"),
	       "-n: an edited leaf and, not knowing its output, its dependents");
	TAP_IS_INT(lines(e.log), 0, "-n runs nothing");
	build(&e, false, false);
	TAP_IS_STR(e.log, "a\n", "early cutoff: the leaf reran, its output did not change, nothing else ran");

	node("a")->src = "A2";
	build(&e, false, false);
	TAP_IS_STR(e.log, "a\nab\ntop\n", "a changed output reruns the dependents, not the other leaf");
	env_free(&e);
}

static void test_expand(void)
{
	static const struct toy g[] = {
		{ .name = "g", .kind = TOY_GEN, .src = "G", .gen = 3, .into = "sink" },
		{ .name = "sink", .kind = TOY_CAT, .deps = { "g" } },
	};
	struct env e;
	env_init(&e, "toy-expand");
	set_graph(g, 2);
	TAP_IS_INT(build(&e, false, false), 0, "expansion: the build succeeds");
	TAP_IS_INT(lines(e.log), 5, "the three nodes the result added ran in the same build");
	TAP_OK(ran_at(e.log, "g.0") > ran_at(e.log, "g") && ran_at(e.log, "sink") > ran_at(e.log, "g.2"),
	       "after their generator, and before the node that gained them as inputs");
	build(&e, false, false);
	TAP_IS_INT(lines(e.log), 0, "null build: expanded again from the cached result, nothing ran");
	build(&e, true, false);
	TAP_OK(strstr(e.r.out, "0 steps would run"), "-n: the expansion is known from the cache");
	node("g")->gen = 4;
	build(&e, false, false);
	TAP_OK(ran_at(e.log, "g.3") >= 0 && ran_at(e.log, "g.0") < 0 && ran_at(e.log, "sink") >= 0,
	       "one more node: it runs, the others stay, the sink reruns");
	env_free(&e);
}

static void test_failure(void)
{
	static const struct toy g[] = {
		{ .name = "bad", .kind = TOY_LEAF, .src = "X", .fail = true },
		{ .name = "good", .kind = TOY_LEAF, .src = "Y" },
		{ .name = "hard", .kind = TOY_CAT, .deps = { "bad", "good" } },
		{ .name = "soft", .kind = TOY_CAT, .deps = { "bad", "good" }, .flags = { DAG_EDGE_SOFT, 0 } },
		{ .name = "after", .kind = TOY_CAT, .deps = { "hard" } },
	};
	struct env e;
	env_init(&e, "toy-fail");
	set_graph(g, 5);
	TAP_IS_INT(build(&e, false, true), 1, "a failed step fails the build (-k)");
	TAP_OK(ran_at(e.log, "hard") < 0 && ran_at(e.log, "after") < 0, "its dependents do not run, nor theirs");
	TAP_OK(strstr(e.r.err, "leaf bad failed: told to fail"), "the failure is reported with the rule's reason");
	TAP_OK(ran_at(e.log, "soft") > ran_at(e.log, "bad"), "a soft edge: the dependent runs after the failed input");
	TAP_OK(ran_at(e.log, "good") >= 0, "-k: the independent step runs");
	build(&e, false, true);
	TAP_IS_STR(e.log, "bad\n", "next build: the failed step runs again, the soft dependent is fresh");
	node("bad")->fail = false;
	build(&e, false, true);
	TAP_OK(ran_at(e.log, "hard") >= 0 && ran_at(e.log, "after") >= 0 && ran_at(e.log, "soft") >= 0,
	       "once it passes, every dependent runs");
	env_free(&e);

	static const struct toy g2[] = {
		{ .name = "bad", .kind = TOY_LEAF, .src = "X", .fail = true },
		{ .name = "good", .kind = TOY_LEAF, .src = "Y", .deps = { "bad" } },
	};
	env_init(&e, "toy-stop");
	set_graph(g2, 2);
	TAP_IS_INT(build(&e, false, false), 1, "without -k a failure stops the build");
	TAP_OK(ran_at(e.log, "good") < 0, "... its dependent does not run");
	env_free(&e);
}

static void test_order_only(void)
{
	/* "next" keys on "prev"'s key: it needs prev ordered before it, not prev's result */
	static const struct toy g[] = {
		{ .name = "up", .kind = TOY_LEAF, .src = "U" },
		{ .name = "prev", .kind = TOY_CAT, .src = "P", .fail = true, .deps = { "up" } },
		{ .name = "next", .kind = TOY_CAT, .src = "N", .deps = { "prev" },
		  .flags = { DAG_EDGE_ORDER | DAG_EDGE_SOFT } },
		{ .name = "plain", .kind = TOY_CAT, .src = "Q", .deps = { "prev" }, .flags = { DAG_EDGE_SOFT } },
	};
	struct env e;
	env_init(&e, "toy-order");
	set_graph(g, 4);
	build(&e, false, true);
	TAP_OK(ran_at(e.log, "next") > ran_at(e.log, "prev") && ran_at(e.log, "plain") > ran_at(e.log, "prev"),
	       "order-only: the dependent runs after its input");
	build(&e, true, true);
	TAP_OK(strstr(e.r.out, "cat prev\n") && !strstr(e.r.out, "cat next\n") && strstr(e.r.out, "cat plain\n"),
	       "-n: an input that would run for its own reason: an order-only dependent keys and is fresh, a plain one would run");
	node("up")->src = "U2";
	build(&e, true, true);
	TAP_OK(strstr(e.r.out, "cat prev\n") && strstr(e.r.out, "cat next\n"),
	       "-n: an input that waits on its own inputs: the order-only dependent would run too");
	env_free(&e);
}

static void test_priority(void)
{
	/* ready at once; created in this order */
	static const struct toy g[] = {
		{ .name = "low", .kind = TOY_LEAF, .src = "1", .prio = 1 },
		{ .name = "high", .kind = TOY_LEAF, .src = "2", .prio = 5 },
		{ .name = "tie1", .kind = TOY_LEAF, .src = "3", .prio = 3 },
		{ .name = "tie2", .kind = TOY_LEAF, .src = "4", .prio = 3 },
		{ .name = "none", .kind = TOY_LEAF, .src = "5" },
	};
	struct env e;
	env_init(&e, "toy-prio");
	set_graph(g, 5);
	build(&e, false, false);
	TAP_IS_STR(e.log, "high\ntie1\ntie2\nlow\nnone\n",
		   "ready steps start by priority, ties in creation order");
	env_free(&e);
}

int main(void)
{
	test_build_and_cutoff();
	test_expand();
	test_failure();
	test_order_only();
	test_priority();
	return tap_done();
}
