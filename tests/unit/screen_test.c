/*
 * tests/unit/screen_test.c: the screen rule (rules/screen.c) on nodes and
 * results made up here, with no worker: its request is PROTOCOL.md's
 * screen request field for field; its starts are the other declared
 * variants' configs for the kernel; its key follows the screen's
 * parameters, the starts and the tolerances and not the budget or gamma;
 * it sends nothing for a kernel the analyst leaves alone; its stable part
 * is the best configs alone, and candidate 0 keys on it only where it holds
 * configs.
 */
#define _GNU_SOURCE
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lang/lang.h"
#include "../../rules/rules.h"
#include "../../rules/plan.h"
#include "../../rules/screen.h"
#include "../../rules/keys.h"
#include "../../rules/outputs.h"
#include "../../rules/common.h"
#include "../tap.h"

extern const struct rule rule_screen;

static void quiet(void *ctx, const struct kopt_diag *dg)
{
	(void)ctx;
	fprintf(stderr, "%s\n", dg->message);
}

/* a done node of kind at path with manifest text (the result parsed anew) */
static void set_result(struct dag_node *n, const char *manifest)
{
	json_decref(n->result);
	n->result = NULL;
	n->manifest = manifest;
	n->manifest_len = manifest ? (uint32_t)strlen(manifest) : 0;
	n->flags = manifest ? DAG_DONE : 0;
}

static const char cap0[] = "{\"stable\":{\"kernels\":[{\"name\":\"k\",\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":16,\"num_stages\":1}}]}}";
static const char cap1[] = "{\"stable\":{\"kernels\":[{\"name\":\"j\",\"config\":{\"XBLOCK\":8}},"
			   "{\"name\":\"k\",\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":4096,\"num_warps\":32,\"num_stages\":1}}]}}";
static const char cap1_same[] = "{\"stable\":{\"kernels\":[{\"name\":\"k\",\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":16,\"num_stages\":1}}]}}";
static const char cap1_keys[] = "{\"stable\":{\"kernels\":[{\"name\":\"k\",\"config\":{\"XBLOCK\":1,\"num_warps\":32,\"num_stages\":1}}]}}";
static const char prof_slow[] = "{\"stable\":{\"kernels\":[{\"name\":\"k\",\"heuristic\":\"reduction\","
				"\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":16,\"num_stages\":1}}]},"
				"\"meas\":{\"rows\":[{\"name\":\"k\",\"ns_per_call\":50000,\"frac_peak\":0.4}]}}";
static const char prof_fast[] = "{\"stable\":{\"kernels\":[{\"name\":\"k\",\"heuristic\":\"reduction\","
				"\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":2048,\"num_warps\":16,\"num_stages\":1}}]},"
				"\"meas\":{\"rows\":[{\"name\":\"k\",\"ns_per_call\":50000,\"frac_peak\":0.98}]}}";
static const char prof_nocfg[] = "{\"stable\":{\"kernels\":[{\"name\":\"k\",\"heuristic\":\"jit\"}]},"
				 "\"meas\":{\"rows\":[{\"name\":\"k\",\"ns_per_call\":50000,\"frac_peak\":0.4}]}}";

static struct dag d;
static struct dag_node cnode[2], pnode, snode;
static struct rule_model dm;
static struct rule_mv mvs[2];
static struct rule_kernel kern;

static char *key_hex(void)
{
	struct hash_key k;
	char h[HASH_HEX];
	hash_key_init(&k, rule_screen.name, rule_screen.version);
	char *why = NULL;
	TAP_OK(rule_screen.key(&d, &snode, &k, &why) == 0, "the key can be computed");
	hash_hex(hash_key_final(&k), h);
	hash_key_release(&k);
	return xstrdup(h);
}

static char *starts_text(void)
{
	json_t *s = rule_screen_starts(&d, &kern);
	char *t = json_dumps(s, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(s);
	return t;
}

/* whether o has exactly these keys */
static bool exactly(const json_t *o, const char *const *keys, size_t n)
{
	if (json_object_size(o) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!json_object_get(o, keys[i]))
			return false;
	return true;
}

static char *installed_man; /* the manifest set_result points into */

/* the reply in run as the screen's result, done, and kern's screen */
static void installed(struct rule_run *run)
{
	json_t *manj = json_pack("{s:O, s:O}", "stable", run->stable, "meas", run->meas);
	installed_man = json_dumps(manj, JSON_COMPACT);
	json_decref(manj);
	set_result(&snode, installed_man);
	snode.out = dag_stable_hash(run->stable);
	snode.flags = DAG_DONE;
	kern.screen = &snode;
}

/* ... undone, and run cleared for the next reply */
static void uninstalled(struct rule_run *run)
{
	set_result(&snode, NULL);
	free(installed_man);
	installed_man = NULL;
	kern.screen = NULL;
	snode.flags = 0;
	json_decref(run->stable);
	json_decref(run->meas);
	memset(run, 0, sizeof *run);
	run->dag = &d;
	run->node = &snode;
}

int main(void)
{
	char tmpl[] = "/tmp/kopt-screen-test-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char *py = xasprintf("%s/m.py", dir);
	FILE *f = fopen(py, "w");
	fputs("import torch\n", f);
	fclose(f);
	static const char text[] =
		"device d { }\n"
		"agents a { budget = 4  seed = 3  screen = 15s  screen_configs = 30 }\n"
		"gates g { atol = 1e-4 }\n"
		"defaults { device = d  agents = a  gates = g }\n"
		"model m { source = \"m.py\"  variant default { }  variant autotune { mode = \"max-autotune-no-cudagraphs\" } }\n";
	kopt_spec *spec = NULL;
	if (lang_load_buffer("screen.kopt", dir, text, strlen(text), quiet, NULL, &spec) < 0)
		return 1;
	struct kopt_model *m = &spec->models[0];

	d.spec = spec;
	dm.spec = m;
	dm.mvs = mvs;
	dm.nmv = 2;
	dm.file_hash = hash_str("m.py's bytes");
	for (int v = 0; v < 2; v++) {
		hash_key_init_bare(&mvs[v].variant_key);
		rule_key_variant(&mvs[v].variant_key, &m->variants[v]);
		mvs[v].model = &dm;
		mvs[v].variant = &m->variants[v];
		mvs[v].index = (size_t)v;
		mvs[v].capture = &cnode[v];
	}
	mvs[0].profile = &pnode;
	set_result(&cnode[0], cap0);
	set_result(&cnode[1], cap1);
	set_result(&pnode, prof_slow);
	kern.mv = &mvs[0];
	kern.name = "k";
	kern.ident = hash_str("the inventory entry of k");
	kern.n = 4;
	kern.screen = &snode;
	snode.rule = &rule_screen;
	snode.kind = RULE_SCREEN;
	snode.path = "m/default/k";
	snode.ctx = &kern;

	/* the starts */
	char *s = starts_text();
	TAP_IS_STR(s, "[{\"R0_BLOCK\":4096,\"XBLOCK\":1,\"num_stages\":1,\"num_warps\":32}]",
		   "starts: the config max-autotune's capture gave the same kernel");
	free(s);
	set_result(&cnode[1], cap1_same);
	s = starts_text();
	TAP_IS_STR(s, "[]", "starts: none where the other variant's config is the kernel's own");
	free(s);
	set_result(&cnode[1], cap1_keys);
	s = starts_text();
	TAP_IS_STR(s, "[]", "starts: none where the other variant's kernel has other keys");
	free(s);
	set_result(&cnode[1], NULL);
	s = starts_text();
	TAP_IS_STR(s, "[]", "starts: none from a capture without a result (failed)");
	free(s);
	set_result(&cnode[1], cap1);

	/* the request, as PROTOCOL.md's "screen" has it */
	struct rule_run run;
	memset(&run, 0, sizeof run);
	run.dag = &d;
	run.node = &snode;
	TAP_IS_INT(rule_screen.start(&run), RULE_SEND, "start: a worker request");
	json_t *rq = run.request;
	static const char *const fields[] = { "op", "model", "variant", "seed", "kernel", "gates", "starts",
					      "budget_s", "max_configs", "keep", "reps", "knobs" };
	TAP_OK(exactly(rq, fields, sizeof fields / sizeof *fields), "request: exactly PROTOCOL.md's fields");
	TAP_IS_STR(json_string_value(json_object_get(rq, "op")), "screen", "request: op screen");
	static const char *const model_fields[] = { "name", "kind", "path" };
	TAP_OK(exactly(json_object_get(rq, "model"), model_fields, 3) &&
	       strcmp(json_string_value(json_object_get(json_object_get(rq, "model"), "kind")), "torch") == 0,
	       "request: the model object");
	TAP_IS_STR(json_string_value(json_object_get(json_object_get(rq, "variant"), "name")), "default",
		   "request: the kernel's variant");
	TAP_OK(json_is_integer(json_object_get(rq, "seed")) && json_integer_value(json_object_get(rq, "seed")) == 3,
	       "request: the agents' seed, a whole number");
	TAP_IS_STR(json_string_value(json_object_get(rq, "kernel")), "k", "request: the kernel's name");
	json_t *g = json_object_get(rq, "gates");
	TAP_OK(json_is_real(json_object_get(g, "atol")) && json_is_real(json_object_get(g, "rtol_half")) &&
	       json_is_string(json_object_get(g, "precision")) && json_is_integer(json_object_get(g, "min_pairs")),
	       "request: the whole gates object");
	TAP_OK(json_is_array(json_object_get(rq, "starts")) && json_array_size(json_object_get(rq, "starts")) == 1,
	       "request: starts, an array of configs");
	TAP_OK(json_is_number(json_object_get(rq, "budget_s")) && json_number_value(json_object_get(rq, "budget_s")) == 15,
	       "request: budget_s, the agents' screen in seconds");
	TAP_OK(json_is_integer(json_object_get(rq, "max_configs")) && json_integer_value(json_object_get(rq, "max_configs")) == 30,
	       "request: max_configs, the agents' screen_configs");
	TAP_OK(json_is_integer(json_object_get(rq, "keep")) && json_integer_value(json_object_get(rq, "keep")) == 3 &&
	       json_is_integer(json_object_get(rq, "reps")) && json_integer_value(json_object_get(rq, "reps")) > 0,
	       "request: keep 3 and reps, whole numbers");
	TAP_OK(json_is_true(json_object_get(rq, "knobs")), "request: knobs, the source knobs searched with the keys");
	json_decref(run.request);
	run.request = NULL;
	rule_screen.release(&run); /* the engine's part: the run's own state */

	/* the key */
	struct kopt_agents *ag = m->agents;
	struct kopt_gates *gs = m->gates;
	char *k0 = key_hex();
	ag->budget = 16;
	char *k1 = key_hex();
	TAP_IS_STR(k1, k0, "key: not the budget");
	gs->gamma = 1.1;
	char *k2 = key_hex();
	TAP_IS_STR(k2, k0, "key: not gamma");
	ag->screen_s = 30;
	char *k3 = key_hex();
	TAP_OK(strcmp(k3, k0) != 0, "key: the screen's time");
	ag->screen_s = 15;
	ag->screen_configs = 31;
	char *k4 = key_hex();
	TAP_OK(strcmp(k4, k0) != 0, "key: the screen's configs");
	ag->screen_configs = 30;
	gs->atol_half = 1e-3;
	char *k5 = key_hex();
	TAP_OK(strcmp(k5, k0) != 0, "key: the tolerances");
	gs->atol_half = 1e-2;
	ag->seed = 4;
	char *k6 = key_hex();
	TAP_OK(strcmp(k6, k0) != 0, "key: the seed");
	ag->seed = 3;
	set_result(&cnode[1], cap1_same);
	char *k7 = key_hex();
	TAP_OK(strcmp(k7, k0) != 0, "key: the starts");
	set_result(&cnode[1], cap1);
	char *k8 = key_hex();
	TAP_IS_STR(k8, k0, "key: the same inputs, the same key");
	dm.file_hash = hash_str("another model's bytes");
	char *k9 = key_hex();
	TAP_OK(strcmp(k9, k0) != 0, "key: the model file");
	dm.file_hash = hash_str("m.py's bytes");
	struct rule_kernel other = kern;
	other.mv = &mvs[1];
	snode.ctx = &other;
	char *k10 = key_hex();
	TAP_OK(strcmp(k10, k0) != 0, "key: the variant (the same kernel in another variant)");
	snode.ctx = &kern;
	char *ks[] = { k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10 };
	for (size_t i = 0; i < sizeof ks / sizeof *ks; i++)
		free(ks[i]);

	/* nothing to screen: done without a request */
	set_result(&pnode, prof_fast);
	kern.loaded = false;
	memset(&run, 0, sizeof run);
	run.dag = &d;
	run.node = &snode;
	TAP_IS_INT(rule_screen.start(&run), RULE_DONE, "start: a kernel the analyst leaves alone (98%%) sends nothing");
	char *sk = json_dumps(run.stable, JSON_COMPACT);
	TAP_IS_STR(sk, "{\"best\":[],\"slower\":[]}", "... its best is empty, and so is its slower");
	TAP_OK(strstr(json_string_value(json_object_get(run.meas, "skipped")), "left alone") != NULL,
	       "... and the measurements say why");
	free(sk);
	snode.out = dag_stable_hash(run.stable);
	snode.flags = DAG_DONE;
	TAP_OK(rule_screen_input(&kern) == NULL, "... candidate 0 keys on no screen");
	json_decref(run.stable);
	json_decref(run.meas);
	set_result(&pnode, prof_nocfg);
	kern.loaded = false;
	memset(&run, 0, sizeof run);
	run.dag = &d;
	run.node = &snode;
	TAP_OK(rule_screen.start(&run) == RULE_DONE && !run.request, "start: a kernel without a launch config sends nothing");
	json_decref(run.stable);
	json_decref(run.meas);
	set_result(&pnode, prof_slow);
	kern.loaded = false;

	/* the reply */
	json_t *res = json_loads("{\"kernel\":\"k\",\"own\":{\"XBLOCK\":1},\"compiles\":5,\"elapsed_s\":2.5,"
				 "\"tried\":[{\"config\":{\"XBLOCK\":1},\"ok\":true,\"speedup\":1.0}],"
				 "\"best\":[{\"config\":{\"XBLOCK\":2},\"ok\":true,\"ns\":10.5,\"speedup\":1.4,\"q25\":1.3},"
				 "{\"config\":{\"XBLOCK\":4},\"speedup\":1.2},{\"config\":{\"XBLOCK\":8},\"speedup\":1.1},"
				 "{\"config\":{\"XBLOCK\":16},\"speedup\":1.05}]}", 0, NULL);
	memset(&run, 0, sizeof run);
	run.dag = &d;
	run.node = &snode;
	TAP_IS_INT(rule_screen.reply(&run, res), RULE_DONE, "reply: done");
	char *st = json_dumps(run.stable, JSON_COMPACT | JSON_SORT_KEYS);
	TAP_IS_STR(st, "{\"best\":[{\"XBLOCK\":2},{\"XBLOCK\":4},{\"XBLOCK\":8}],\"slower\":[]}",
		   "reply: the stable part is the best configs alone, three at most (the kernel's own is not slower)");
	free(st);
	TAP_OK(rule_num(json_array_get(json_object_get(run.meas, "best"), 0), "speedup") == 1.4 &&
	       json_array_size(json_object_get(run.meas, "tried")) == 1 && rule_num(run.meas, "elapsed_s") == 2.5,
	       "reply: the times, the configs tried and the seconds are measurements");
	snode.out = dag_stable_hash(run.stable);
	snode.flags = DAG_DONE;
	TAP_OK(rule_screen_input(&kern) == &snode, "candidate 0 keys on a screen that found configs");
	snode.flags = DAG_FAILED;
	TAP_OK(rule_screen_input(&kern) == NULL, "... not on one that failed");
	snode.flags = 0;
	kern.screen = NULL;
	TAP_OK(rule_screen_input(&kern) == NULL, "... nor where there is none");
	json_decref(run.stable);
	json_decref(run.meas);
	json_decref(res);
	memset(&run, 0, sizeof run);
	run.dag = &d;
	run.node = &snode;
	/* a best point with source knobs: its edit and text in the stable part,
	 * beside its config; rule_screen_best hands both to the planner */
	res = json_loads("{\"kernel\":\"k\",\"tried\":[],\"knobs\":[\"evict0\",\"rstages\"],"
			 "\"best\":[{\"config\":{\"XBLOCK\":2},\"edit\":\"evict0=first+rstages=2\","
			 "\"source\":\"edited text\",\"speedup\":1.5},{\"config\":{\"XBLOCK\":4},\"edit\":\"\",\"speedup\":1.2}]}",
			 0, NULL);
	TAP_IS_INT(rule_screen.reply(&run, res), RULE_DONE, "reply with knobs: done");
	st = json_dumps(run.stable, JSON_COMPACT | JSON_SORT_KEYS);
	TAP_IS_STR(st, "{\"best\":[{\"XBLOCK\":2},{\"XBLOCK\":4}],\"edits\":[{\"edit\":\"evict0=first+rstages=2\","
		   "\"source\":\"edited text\"},null],\"slower\":[]}",
		   "reply with knobs: the stable part has each config's edit and its text, null for none");
	free(st);
	TAP_OK(json_array_size(json_object_get(run.meas, "knobs")) == 2, "... the knobs searched are a measurement");
	installed(&run);
	json_t *sb = rule_screen_best(&d, &kern);
	TAP_OK(json_array_size(sb) == 2 &&
	       strcmp(json_string_value(json_object_get(json_array_get(sb, 0), "edit")), "evict0=first+rstages=2") == 0 &&
	       strcmp(json_string_value(json_object_get(json_array_get(sb, 0), "source")), "edited text") == 0 &&
	       !json_object_get(json_array_get(sb, 1), "edit") && rule_num(json_array_get(sb, 0), "speedup") == 1.5,
	       "rule_screen_best: the planner gets the edit and its text with the config");
	json_decref(sb);
	uninstalled(&run);
	json_decref(res);
	/* what the screen found no faster alone: launch configs without source
	 * knobs, slower, wrong or not building, each once; a best point that
	 * is not faster is among them, not among the best */
	res = json_loads("{\"kernel\":\"k\",\"tried\":["
			 "{\"config\":{\"XBLOCK\":1},\"ok\":true,\"speedup\":1.0},"
			 "{\"config\":{\"XBLOCK\":32},\"ok\":true,\"speedup\":0.8},"
			 "{\"config\":{\"XBLOCK\":64},\"ok\":false,\"error\":\"outputs differ from the baseline kernel's\"},"
			 "{\"config\":{\"XBLOCK\":2},\"edit\":\"evict0=first\",\"ok\":true,\"speedup\":0.5},"
			 "{\"config\":{\"XBLOCK\":32},\"ok\":true,\"speedup\":0.7},"
			 "{\"config\":{\"XBLOCK\":4},\"ok\":true,\"speedup\":0.95},"
			 "{\"config\":{\"XBLOCK\":8},\"ok\":true,\"speedup\":1.2}],"
			 "\"best\":[{\"config\":{\"XBLOCK\":8},\"ok\":true,\"speedup\":1.2},"
			 "{\"config\":{\"XBLOCK\":4},\"ok\":true,\"speedup\":0.95}]}", 0, NULL);
	TAP_IS_INT(rule_screen.reply(&run, res), RULE_DONE, "reply with slower configs: done");
	st = json_dumps(run.stable, JSON_COMPACT | JSON_SORT_KEYS);
	TAP_IS_STR(st, "{\"best\":[{\"XBLOCK\":8}],\"slower\":[{\"XBLOCK\":32},{\"XBLOCK\":64},{\"XBLOCK\":4}]}",
		   "reply: the slower, wrong and not-faster launch configs are in the stable part, once each; no edited one");
	free(st);
	installed(&run);
	sb = rule_screen_slower(&d, &kern, "slower");
	TAP_IS_INT((int)json_array_size(sb), 3, "rule_screen_slower: the planner gets them");
	json_decref(sb);
	TAP_OK(rule_screen_slower(&d, &kern, "slower_persist") == NULL, "... and no slower_persist where no persist=on was timed");
	snode.flags = DAG_FAILED;
	TAP_OK(rule_screen_slower(&d, &kern, "slower") == NULL, "... not from a screen that failed");
	uninstalled(&run);
	json_decref(res);
	/* the persistent transform alone (persist=on) timed no faster at a
	 * config: slower_persist has that config, once; with another knob, or
	 * faster, it is not there */
	res = json_loads("{\"kernel\":\"k\",\"tried\":["
			 "{\"config\":{\"XBLOCK\":1},\"ok\":true,\"speedup\":1.0},"
			 "{\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":16384},\"edit\":\"persist=on\",\"ok\":true,\"speedup\":0.6},"
			 "{\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":16384},\"edit\":\"persist=on\",\"ok\":true,\"speedup\":0.62},"
			 "{\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":8192},\"edit\":\"persist=on+evict0=first\",\"ok\":true,\"speedup\":0.5},"
			 "{\"config\":{\"XBLOCK\":1,\"R0_BLOCK\":4096},\"edit\":\"persist=on\",\"ok\":true,\"speedup\":1.3}],"
			 "\"best\":[]}", 0, NULL);
	TAP_IS_INT(rule_screen.reply(&run, res), RULE_DONE, "reply with persist=on rows: done");
	st = json_dumps(json_object_get(run.stable, "slower_persist"), JSON_COMPACT | JSON_SORT_KEYS);
	TAP_IS_STR(st ? st : "(none)", "[{\"R0_BLOCK\":16384,\"XBLOCK\":1}]",
		   "reply: slower_persist, the configs where persist=on alone was no faster, once");
	free(st);
	installed(&run);
	sb = rule_screen_slower(&d, &kern, "slower_persist");
	TAP_IS_INT((int)json_array_size(sb), 1, "rule_screen_slower: the planner gets them");
	json_decref(sb);
	uninstalled(&run);
	json_decref(res);
	res = json_loads("{\"tried\":[],\"best\":[{\"config\":{\"XBLOCK\":2},\"edit\":\"evict0=first\"}]}", 0, NULL);
	TAP_IS_INT(rule_screen.reply(&run, res), RULE_FAIL, "reply: a best naming knobs without their source fails the step");
	free(run.error);
	json_decref(res);
	memset(&run, 0, sizeof run);
	run.dag = &d;
	run.node = &snode;
	res = json_loads("{\"tried\":[],\"best\":[{\"config\":{\"XBLOCK\":[2]}}]}", 0, NULL);
	TAP_IS_INT(rule_screen.reply(&run, res), RULE_FAIL, "reply: a best that is no launch config fails the step");
	free(run.error);
	json_decref(res);
	memset(&run, 0, sizeof run);
	run.dag = &d;
	run.node = &snode;
	res = json_loads("{\"kernel\":\"k\",\"tried\":[],\"best\":[],\"compiles\":0,\"error\":\"no launch config\"}", 0, NULL);
	TAP_IS_INT(rule_screen.reply(&run, res), RULE_DONE, "reply: a screen the worker could not run is kept");
	TAP_OK(json_array_size(json_object_get(run.stable, "best")) == 0 &&
	       strcmp(json_string_value(json_object_get(run.meas, "error")), "no launch config") == 0,
	       "... with no configs, the error a measurement");
	json_decref(run.stable);
	json_decref(run.meas);
	json_decref(res);

	for (int v = 0; v < 2; v++) {
		json_decref(cnode[v].result);
		hash_key_release(&mvs[v].variant_key);
	}
	json_decref(pnode.result);
	kopt_spec_free(spec);
	unlink(py);
	free(py);
	rmdir(dir);
	return tap_done();
}
