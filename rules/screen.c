/*
 * rules/screen.c: one hot Triton kernel's launch configs searched alone, on
 * its real launch arguments, in a worker, before its chain of candidates
 * (PROTOCOL.md "screen", runtime/python/kopt/screen.py).
 *
 * The worker compiles each config it tries, checks it against Inductor's
 * kernel on copies of the same arguments and times the two side by side;
 * the reply lists every config tried and the KEEP fastest correct ones.
 * Screening decides nothing: the planner proposes those configs first
 * (agents/builtin/screened.c) and the four gates judge them as any other
 * candidate. The budget counts gated candidates; screening is bounded by
 * time (agents: screen) and by configs (screen_configs).
 *
 * One node per hot kernel of a model variant, added by the profile's
 * expansion beside the kernel's chain (rule_screen_add), with the chain's
 * affinity and priority. The chain's first proposal depends on it through a
 * soft edge: a failed screen leaves the chain to the plan alone, and so
 * does one the worker could not run (it answers no configs and the error,
 * which is kept: the plan decides until the screen's key changes). Where
 * the analyst leaves the kernel alone or it has no launch config, the step
 * sends nothing and its result is an empty best ("skipped" says why): the
 * decision reads the profile's row, which a null build must not parse, so
 * it is made when the step runs, not in a skip hook. A screen without
 * configs, skipped or failed leaves candidate 0 keyed as without a screen
 * (rule_screen_input).
 *
 * Key: the kernel's inventory entry (its name, source hash and config), the
 * model file and the variant (the arguments come from a call of this model
 * compiled this way, and whether there is anything to screen from its
 * profile: two variants or models with the same kernel would otherwise
 * write one entry with two results; where it tunes with coordinate
 * descent, how a config is pinned: rule_key_pinned), the starts, the screen's parameters
 * (time, configs, KEEP, REPS), the gates' tolerances and precision (what
 * the worker's check reads), the agents' seed. Not the budget, so a budget
 * raise screens nothing again; not the memory, not a timing (keys are
 * pure). The starts are the configs the
 * model's other declared variants gave a kernel of the same name
 * (max-autotune's pick, say), read from their captures; a start from the
 * long-term memory would make the key follow the memory, so there is none.
 * Stable part: {"best": [config...], "slower": [config...]}. best: the
 * configs faster than the kernel's own alone, in order, as the worker
 * wrote them. slower: the launch configs (without source knobs) the
 * screen timed and found no faster than the kernel's own alone, or wrong,
 * or not building; the built-in agents send none of them to the gates
 * (agents/builtin/search.c), since a kernel no faster alone cannot make
 * its model gamma faster. slower_persist, where there are any: the
 * configs at which the persistent transform alone (persist=on) was timed
 * no faster; the coder's "persistent" strategy is that transform at such
 * a config, and is not sent either. Where any of the best goes with source knobs
 * (the worker searches those with the launch keys:
 * runtime/python/kopt/knobs.py), "edits": beside each config, {"edit":
 * NAME, "source": TEXT} or null.
 * Measurements: the best's times and speedups, every config tried,
 * compiles, seconds: a screen run again that finds the same configs
 * changes no proposal.
 *
 * Source knobs are searched for the kernels whose launch keys are (the
 * request's "knobs"): the kernel's source is in the key already.
 *
 * The kernel transforms (runtime/python/kopt/transforms.py) the analyst's
 * diagnosis calls for (agent_transforms: persist=on, rloop=reverse,
 * onepass=...; launch configs for strided and short rows), and the skills
 * the long-term memory holds for the kernel's class and feature class
 * (agent_skills: wins of earlier builds, this spec's too), go in the
 * request ("transforms", "skills"): the worker measures them first, the
 * skills' before the transforms', and searches around them. Both are
 * read when the step runs, as the decision to skip is (the diagnosis
 * reads the profile's row, the skills the memory): the key holds the
 * transforms' version (AGENT_TRANSFORMS_VERSION), not what was chosen,
 * so a memory that grows later does not screen again (keys are pure, as
 * a proposal's). Measurements: "chosen" (the analyst's transforms and
 * notes, the skills sent) and "refused" (an edit the worker found does
 * not apply, and why). A best point reached from a skill or a transform
 * says which ("skill", "transform"), in the stable part's "edits" beside
 * its source knobs: the candidate it becomes carries it, and the report
 * says which skill made which win.
 *
 * A config that kills the CUDA context (an illegal memory access) comes
 * back as a row that failed with the reason, in an answer that says
 * "lost": the worker is replaced (PROTOCOL.md), and the screen is sent
 * again, to the worker in its place, with every row so far ("resume"):
 * none is measured again, that config included, and the search goes on
 * within what is left of its time. After LOSSES such answers the rows so
 * far are the result. Measurements: "lost", the reasons.
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../agents/agent.h"
#include "../agents/features.h"
#include "rules.h"
#include "plan.h"
#include "propose.h"
#include "screen.h"
#include "proto.h"
#include "keys.h"
#include "outputs.h"
#include "groups.h"
#include "common.h"

#define SCREEN_VERSION 6 /* 2: source knobs searched with the launch keys; 3: "slower"; 4: grid=G; 5: the kernel's own blocks bound its moves; 6: the analyst's transforms and the skills first */
#define SKILLS 3 /* skills sent per screen: the class's first */
#define KEEP 3 /* configs that go on to the gates: with a budget of 4, a reduction's
		* persistent edit (first in its plan) still gets the fourth */
#define REPS 7 /* timed pairs per config */
#define LOSSES 3 /* workers a screen may lose to configs that kill the CUDA context */

/* the node's kernel */
static struct rule_kernel *kernel_of(const struct dag_node *n)
{
	return n->ctx;
}

struct dag_node *rule_screen_add(struct dag *d, struct rule_kernel *k)
{
	struct rule_mv *mv = k->mv;
	struct rule_model *dm = mv->model;
	const struct kopt_model *m = dm->spec;
	const struct kopt_agents *ag = m->agents;
	if (!ag || !(ag->screen_s > 0) || k->n <= 0 || m->kind != KOPT_MODEL_TORCH ||
	    ag->roles[KOPT_ROLE_CODER].backend != KOPT_BACKEND_BUILTIN)
		return NULL;
	char *path = xasprintf("%s/%s", mv->capture->path, k->name);
	struct dag_node *s = dag_add(d, RULE_SCREEN, path, k);
	free(path);
	s->affinity = mv->affinity;
	dag_add_dep(s, mv->profile, 0);
	/* the other declared variants' captures hold the starts; one that
	 * fails gives none */
	for (size_t v = 0; v < m->nvariants && v < dm->nmv; v++)
		if (&dm->mvs[v] != mv)
			dag_add_dep(s, dm->mvs[v].capture, DAG_EDGE_SOFT);
	k->screen = s;
	return s;
}

/* the config of kernel name in a capture's inventory, or NULL */
static const json_t *captured_config(struct dag *d, struct dag_node *capture, const char *name)
{
	if (!(capture->flags & DAG_DONE))
		return NULL;
	return json_object_get(rule_inventory_entry(dag_result(d, capture), name), "config");
}

/* whether a and b are configs with the same keys */
static bool same_keys(const json_t *a, const json_t *b)
{
	if (!json_is_object(a) || !json_is_object(b) || json_object_size(a) != json_object_size(b))
		return false;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)a, key, v)
		if (!json_object_get(b, key))
			return false;
	return true;
}

json_t *rule_screen_starts(struct dag *d, const struct rule_kernel *k)
{
	struct rule_model *dm = k->mv->model;
	json_t *starts = json_array();
	const json_t *own = NULL;
	for (size_t v = 0; v < dm->spec->nvariants && v < dm->nmv; v++) {
		if (&dm->mvs[v] == k->mv)
			continue;
		if (!own) /* from the capture: a null build parses no profile */
			own = captured_config(d, k->mv->capture, k->name);
		const json_t *c = captured_config(d, dm->mvs[v].capture, k->name);
		if (!same_keys(c, own) || json_equal((json_t *)c, (json_t *)own))
			continue;
		bool seen = false;
		for (size_t i = 0; i < json_array_size(starts); i++)
			seen |= json_equal(json_array_get(starts, i), (json_t *)c) != 0;
		if (!seen)
			json_array_append(starts, (json_t *)c);
	}
	return starts;
}

/* the kernel as the agents see it (rule_agent_kernel, as the propose
 * step's), with its source into src and its class into cls */
static void screened_kernel(struct dag *d, struct rule_kernel *k, struct agent_kernel *ak, struct strbuf *src,
			    char *cls)
{
	rule_agent_kernel(d, k, ak);
	rule_kernel_source(d, k, src);
	ak->source = src->len ? src->buf : NULL;
	if (src->len) {
		snprintf(cls, 17, "%016llx", (unsigned long long)rule_kernel_class(src->buf, k->name));
		ak->cls = cls;
	}
}

/* why there is nothing to screen (the analyst leaves the kernel alone, or
 * it has no launch config to start from), or NULL; caller frees */
static char *nothing_to_screen(struct rule_kernel *k, const struct agent_kernel *ak)
{
	if (!json_is_object(k->config))
		return xstrdup("the kernel has no launch config");
	/* the analyst reads the row alone, as the propose step's does: no source */
	struct agent_kernel bare = *ak;
	bare.source = NULL;
	char *why = NULL;
	if (agent_analyze(&bare, &why) == 1)
		return why;
	free(why);
	return NULL;
}

static json_t *empty_best(void)
{
	return json_pack("{s:[], s:[]}", "best", "slower");
}

const struct dag_node *rule_screen_input(const struct rule_kernel *k)
{
	static kopt_hash empty;
	if (hash_is_zero(empty)) {
		json_t *j = empty_best();
		empty = dag_stable_hash(j);
		json_decref(j);
	}
	const struct dag_node *s = k->screen;
	if (!s || (s->flags & (DAG_DONE | DAG_NONE)) != DAG_DONE || hash_eq(s->out, empty))
		return NULL;
	return s;
}

static int screen_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)why;
	struct rule_kernel *kn = kernel_of(n);
	const struct kopt_model *m = kn->mv->model->spec;
	const struct kopt_agents *ag = m->agents;
	const struct kopt_gates *g = m->gates;
	hash_key_hash(k, "kernel", kn->ident);
	hash_key_hash(k, "model", kn->mv->model->file_hash);
	hash_key_splice(k, &kn->mv->variant_key);
	rule_key_pinned(k, kn->mv->variant);
	json_t *starts = rule_screen_starts(d, kn);
	char *s = json_dumps(starts, JSON_COMPACT | JSON_SORT_KEYS);
	hash_key_str(k, "param:starts", s);
	free(s);
	json_decref(starts);
	hash_key_double(k, "param:screen", ag->screen_s);
	hash_key_int(k, "param:screen_configs", ag->screen_configs);
	hash_key_int(k, "param:keep", KEEP);
	hash_key_int(k, "param:reps", REPS);
	hash_key_int(k, "param:knobs", 1);
	hash_key_int(k, "param:transforms", AGENT_TRANSFORMS_VERSION);
	hash_key_int(k, "param:seed", (long long)ag->seed);
	/* what the worker's check reads of the gates */
	rule_key_tolerances(k, g);
	hash_key_str(k, "param:precision", lang_precision_names[g->precision < KOPT_PRECISION_COUNT ? g->precision : 0]);
	return 0;
}

/* the losses so far (the reasons), kept across the requests of one run,
 * and what was chosen to try first */
struct screen_priv {
	json_t *lost;
	json_t *chosen;     /* {"transforms", "skills"} (first_points) */
};

/* what the screen tries first: the skills, then the analyst's
 * transforms (their notes stay out of the request); kept in *chosen */
static void first_points(struct dag *d, const struct agent_kernel *ak, json_t *req, json_t **chosen)
{
	char *memory = d->cache ? rule_memory_path(d) : NULL;
	const struct rule_plan *pl = d->plan;
	json_t *skills = agent_skills(memory, pl ? pl->skills_upto : 0, ak, SKILLS);
	free(memory);
	json_t *all = agent_transforms(ak), *tr = json_array();
	size_t i;
	json_t *t;
	json_array_foreach(all, i, t)
		if (json_object_get(t, "edit"))
			json_array_append(tr, t);
	if (json_array_size(skills))
		json_object_set(req, "skills", skills);
	if (json_array_size(tr))
		json_object_set(req, "transforms", tr);
	*chosen = json_pack("{s:o, s:o}", "transforms", all, "skills", skills);
	json_decref(tr);
}

static int screen_start(struct rule_run *run)
{
	struct rule_kernel *k = kernel_of(run->node);
	const struct kopt_model *m = k->mv->model->spec;
	const struct kopt_agents *ag = m->agents;
	struct agent_kernel ak;
	struct strbuf src = STRBUF_INIT;
	char cls[17] = "";
	screened_kernel(run->dag, k, &ak, &src, cls);
	char *why = nothing_to_screen(k, &ak);
	if (why) {
		run->stable = empty_best();
		run->meas = json_pack("{s:s}", "skipped", why);
		free(why);
		strbuf_release(&src);
		return RULE_DONE;
	}
	run->request = json_pack("{s:s, s:o, s:o, s:I, s:s, s:o, s:o, s:f, s:i, s:i, s:i, s:b}", "op", "screen",
				 "model", rule_model_json(k->mv->model), "variant", rule_variant_json(k->mv->variant),
				 "seed", (json_int_t)ag->seed, "kernel", k->name, "gates", rule_gates_json(m->gates),
				 "starts", rule_screen_starts(run->dag, k), "budget_s", ag->screen_s,
				 "max_configs", ag->screen_configs, "keep", KEEP, "reps", REPS, "knobs", 1);
	struct screen_priv *p = run->priv = xcalloc(1, sizeof *p);
	first_points(run->dag, &ak, run->request, &p->chosen);
	strbuf_release(&src);
	return RULE_SEND;
}

/* a launch config as the worker writes one: an object of plain values
 * (block sizes, num_warps, num_stages: whole numbers as Inductor has them,
 * passed on as they are) */
static bool is_config(const json_t *c)
{
	if (!json_is_object(c) || !json_object_size(c))
		return false;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)c, key, v)
		if (json_is_object(v) || json_is_array(v))
			return false;
	return true;
}

static void copy_field(json_t *to, const json_t *from, const char *key)
{
	json_t *v = json_object_get(from, key);
	if (v)
		json_object_set(to, key, v);
}

/* a config the screen found no faster than the kernel's own alone (its
 * median ratio of times under this), or wrong, or not building */
#define SLOWER 1.0

static bool slower(const json_t *row)
{
	return !json_is_true(json_object_get(row, "ok")) || !(rule_num(row, "speedup") >= SLOWER);
}

/* the configs of the screen's tried rows that are slower() and whose
 * source knobs are exactly edit, each once. With edit "": launch configs
 * alone (a source knob's row is another kernel). With "persist=on": the
 * configs at which the persistent transform alone (agents/builtin/
 * persist.c's edit, which the coder's "persistent" strategy proposes) was
 * no faster; the coder then does not send that edit at that config */
static json_t *slower_configs(const json_t *tried, const char *edit)
{
	json_t *out = json_array();
	size_t i, j;
	json_t *r, *o;
	json_array_foreach(tried, i, r) {
		const json_t *c = json_object_get(r, "config");
		const char *e = json_string_value(json_object_get(r, "edit"));
		if (!is_config(c) || strcmp(e ? e : "", edit) != 0 || !slower(r))
			continue;
		bool dup = false;
		json_array_foreach(out, j, o)
			dup |= json_equal(o, c);
		if (!dup)
			json_array_append(out, (json_t *)c);
	}
	return out;
}

static void screen_release(struct rule_run *run)
{
	struct screen_priv *p = run->priv;
	if (p) {
		json_decref(p->lost);
		json_decref(p->chosen);
	}
	free(p);
	run->priv = NULL;
}

/* a config killed the worker's CUDA context: RULE_SEND, the screen again
 * from its rows so far, to the worker in its place; RULE_DONE (nothing
 * set) when it has lost LOSSES workers, and what it has is the result */
static int screen_resume(struct rule_run *run, const json_t *res)
{
	struct screen_priv *p = run->priv;
	if (!p)
		p = run->priv = xcalloc(1, sizeof *p);
	if (!p->lost)
		p->lost = json_array();
	json_array_append(p->lost, json_object_get(res, "lost"));
	if (json_array_size(p->lost) >= LOSSES)
		return RULE_DONE;
	json_t *req = json_deep_copy(run->request), *el = json_object_get(res, "elapsed_s");
	json_object_set_new(req, "resume", json_pack("{s:O, s:o}", "tried", json_object_get(res, "tried"), "elapsed_s",
						     json_is_number(el) ? json_incref(el) : json_real(0)));
	json_decref(run->request);
	run->request = req;
	return RULE_SEND;
}

static int screen_reply(struct rule_run *run, json_t *res)
{
	json_t *best = json_object_get(res, "best"), *tried = json_object_get(res, "tried");
	if (!json_is_array(best) || !json_is_array(tried))
		return rule_fail(run, "the screen result lacks best or tried");
	if (json_is_string(json_object_get(res, "lost")) && screen_resume(run, res) == RULE_SEND)
		return RULE_SEND;
	const char *err = json_string_value(json_object_get(res, "error"));
	if (err) { /* it could not run: no configs, kept, and the plan decides */
		run->stable = empty_best();
		run->meas = json_pack("{s:s}", "error", err);
		return RULE_DONE;
	}
	json_t *configs = json_array(), *rows = json_array(), *edits = json_array();
	bool any_edit = false;
	size_t i, kept = 0;
	json_t *b;
	json_array_foreach(best, i, b) {
		json_t *c = json_object_get(b, "config");
		const char *edit = json_string_value(json_object_get(b, "edit"));
		const char *src = json_string_value(json_object_get(b, "source"));
		const char *bad = !is_config(c) ? "is no launch config" :
				  edit && *edit && !src ? "names source knobs without their source" : NULL;
		if (bad) {
			json_decref(configs);
			json_decref(rows);
			json_decref(edits);
			return rule_fail(run, "the screen's best %zu %s", i + 1, bad);
		}
		if (kept >= KEEP)
			break;
		const json_t *sp = json_object_get(b, "speedup");
		if (json_is_number(sp) && json_number_value(sp) < SLOWER)
			continue; /* the fastest of the rest, and still not faster: among "slower" */
		kept++;
		json_array_append(configs, c);
		json_t *row = json_pack("{s:O}", "config", c);
		static const char *const nums[] = { "speedup", "q25", "ns", "base_ns" };
		for (size_t j = 0; j < sizeof nums / sizeof *nums; j++)
			copy_field(row, b, nums[j]);
		/* the skill or the analyst's transform it came from */
		const char *skill = json_string_value(json_object_get(b, "skill"));
		const char *tr = json_string_value(json_object_get(b, "transform"));
		if ((edit && *edit) || skill || tr) {
			json_t *ed = json_object();
			if (edit && *edit) {
				json_object_set_new(row, "edit", json_string(edit));
				json_object_set_new(ed, "edit", json_string(edit));
				json_object_set_new(ed, "source", json_string(src));
			}
			if (skill)
				json_object_set_new(ed, "skill", json_string(skill));
			if (tr)
				json_object_set_new(ed, "transform", json_string(tr));
			json_array_append_new(edits, ed);
			any_edit = true;
		} else {
			json_array_append_new(edits, json_null());
		}
		copy_field(row, b, "skill");
		copy_field(row, b, "transform");
		json_array_append_new(rows, row);
	}
	run->stable = json_pack("{s:o, s:o}", "best", configs, "slower", slower_configs(tried, ""));
	json_t *sp = slower_configs(tried, "persist=on");
	if (json_array_size(sp))
		json_object_set(run->stable, "slower_persist", sp);
	json_decref(sp);
	if (any_edit)
		json_object_set(run->stable, "edits", edits);
	json_decref(edits);
	run->meas = json_pack("{s:o, s:O}", "best", rows, "tried", tried);
	static const char *const keep[] = { "own", "numel", "compiles", "prefetched", "elapsed_s", "budget_spent", "knobs" };
	for (size_t j = 0; j < sizeof keep / sizeof *keep; j++)
		copy_field(run->meas, res, keep[j]);
	struct screen_priv *p = run->priv;
	if (p && json_array_size(p->lost))
		json_object_set(run->meas, "lost", p->lost);
	if (p && p->chosen)
		json_object_set(run->meas, "chosen", p->chosen);
	if (json_array_size(json_object_get(res, "refused")))
		copy_field(run->meas, res, "refused");
	return RULE_DONE;
}

json_t *rule_screen_best(struct dag *d, const struct rule_kernel *k)
{
	struct dag_node *s = (struct dag_node *)rule_screen_input(k);
	if (!s)
		return NULL;
	json_t *r = dag_result(d, s);
	json_t *best = json_object_get(json_object_get(r, "stable"), "best");
	json_t *edits = json_object_get(json_object_get(r, "stable"), "edits");
	json_t *rows = json_object_get(json_object_get(r, "meas"), "best");
	if (!json_is_array(best))
		return NULL;
	json_t *out = json_array();
	size_t i;
	json_t *c;
	json_array_foreach(best, i, c) {
		double sp = rule_num(json_array_get(rows, i), "speedup");
		json_t *e = json_pack("{s:O, s:o}", "config", c, "speedup", rule_num_json(sp));
		json_t *ed = json_array_get(edits, i);
		if (json_is_object(ed)) {
			static const char *const keys[] = { "edit", "source", "skill", "transform" };
			for (size_t j = 0; j < sizeof keys / sizeof *keys; j++)
				copy_field(e, ed, keys[j]);
		}
		json_array_append_new(out, e);
	}
	return out;
}

json_t *rule_screen_slower(struct dag *d, const struct rule_kernel *k, const char *which)
{
	struct dag_node *s = (struct dag_node *)rule_screen_input(k);
	if (!s)
		return NULL;
	json_t *sl = json_object_get(json_object_get(dag_result(d, s), "stable"), which);
	return json_is_array(sl) ? json_incref(sl) : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_param(struct strbuf *sb, size_t start, const char *key, const json_t *v)
{
	if (json_is_integer(v)) {
		strbuf_addf(sb, "%s%s=%lld", sb->len > start ? " " : "", key, (long long)json_integer_value(v));
		return;
	}
	char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	strbuf_addf(sb, "%s%s=%s", sb->len > start ? " " : "", key, t ? t : "?");
	free(t);
}

/* "XBLOCK=64 R0_BLOCK=512 num_warps=8 num_stages=1": the block sizes and
 * warps first, then any other key in name order */
static void config_text(struct strbuf *sb, const json_t *c)
{
	const char *const *order = agent_launch_order;
	const size_t norder = AGENT_LAUNCH_NORDER;
	const char **rest = xcalloc(json_object_size(c) + 1, sizeof *rest);
	size_t nrest = 0, start = sb->len;
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)c, key, v) {
		size_t i = 0;
		while (i < norder && strcmp(key, order[i]) != 0)
			i++;
		if (i == norder)
			rest[nrest++] = key;
	}
	qsort(rest, nrest, sizeof *rest, cmp_str);
	for (size_t i = 0; i < norder; i++)
		if (json_object_get(c, order[i]))
			add_param(sb, start, order[i], json_object_get(c, order[i]));
	for (size_t i = 0; i < nrest; i++)
		add_param(sb, start, rest[i], json_object_get(c, rest[i]));
	free(rest);
}

/* the candidates of k that are its screen's configs, "c0, c1, c2" */
static void screen_cands(struct dag *d, const struct rule_kernel *k, struct strbuf *sb)
{
	for (int i = 0; i < k->n; i++) {
		struct rule_proposal p;
		rule_proposal_read(d, &k->cands[i], &p);
		if (p.json && agent_screened(p.json))
			strbuf_addf(sb, "%sc%d", sb->len ? ", " : "", i);
	}
}

void rule_screen_md(struct dag *d, const struct rule_kernel *k, struct strbuf *md)
{
	struct dag_node *s = k->screen;
	if (!s)
		return;
	if (s->flags & DAG_FAILED) {
		strbuf_addf(md, "Screen: failed (%s); the candidates follow the plan alone.\n\n",
			    s->why ? s->why : "no reason given");
		return;
	}
	if (!(s->flags & DAG_DONE) || (s->flags & DAG_NONE))
		return;
	json_t *me = json_object_get(dag_result(d, s), "meas");
	json_t *best = json_object_get(me, "best");
	if (json_is_string(json_object_get(me, "skipped"))) {
		strbuf_addf(md, "Screen: none (%s).\n\n", json_string_value(json_object_get(me, "skipped")));
		return;
	}
	if (json_is_string(json_object_get(me, "error"))) {
		strbuf_addf(md, "Screen: could not run (%s); the candidates follow the plan alone.\n\n",
			    json_string_value(json_object_get(me, "error")));
		return;
	}
	double secs = rule_num(me, "elapsed_s");
	size_t ntried = json_array_size(json_object_get(me, "tried"));
	strbuf_addf(md, "Screen: %zu launch config%s tried alone", ntried, kopt_plural(ntried));
	size_t nknobs = json_array_size(json_object_get(me, "knobs"));
	if (nknobs)
		strbuf_addf(md, " with %zu source knob%s", nknobs, kopt_plural(nknobs));
	if (!isnan(secs))
		strbuf_addf(md, " in %.1f s", secs);
	if (!json_array_size(best)) {
		strbuf_addstr(md, "; none correct and faster than its own.\n\n");
		return;
	}
	json_t *b0 = json_array_get(best, 0);
	double sp = rule_num(b0, "speedup");
	strbuf_addstr(md, "; the best");
	if (!isnan(sp))
		strbuf_addf(md, " %.3fx alone", sp);
	strbuf_addstr(md, ": ");
	config_text(md, json_object_get(b0, "config"));
	if (json_string_value(json_object_get(b0, "edit")))
		strbuf_addf(md, " with the source knobs %s", json_string_value(json_object_get(b0, "edit")));
	struct strbuf cs = STRBUF_INIT;
	screen_cands(d, k, &cs);
	if (cs.len)
		strbuf_addf(md, ". Candidates from it: %s", cs.buf);
	size_t nlost = json_array_size(json_object_get(me, "lost"));
	if (nlost)
		strbuf_addf(md, ". %zu config%s lost the CUDA context and failed (the worker was replaced, and the "
				"screen went on without it)", nlost, kopt_plural(nlost));
	strbuf_addstr(md, ".\n\n");
	strbuf_release(&cs);
}

double rule_screen_seconds(struct dag *d, const struct rule_kernel *k)
{
	if (!k->screen || !(k->screen->flags & DAG_DONE) || (k->screen->flags & DAG_NONE))
		return 0;
	double t = rule_num(json_object_get(dag_result(d, k->screen), "meas"), "worker_s");
	return isnan(t) ? 0 : t;
}

bool rule_screen_any(const struct rule_model *dm)
{
	for (size_t v = 0; dm && v < dm->nmv; v++)
		for (size_t k = 0; k < dm->mvs[v].nkernels; k++)
			if (dm->mvs[v].kernels[k].screen)
				return true;
	return false;
}

void rule_key_screens(struct hash_key *k, const struct rule_model *dm)
{
	for (size_t v = 0; dm && v < dm->nmv; v++)
		for (size_t i = 0; i < dm->mvs[v].nkernels; i++) {
			const struct dag_node *s = dm->mvs[v].kernels[i].screen;
			if (s && s->manifest)
				hash_key_hash(k, "result:screen", hash_bytes(s->manifest, s->manifest_len));
		}
}

static double screen_priority(struct dag *d, struct dag_node *n)
{
	struct rule_kernel *k = kernel_of(n);
	return rule_gain(d, k->mv) + rule_kernel_gain(d, k);
}

/* -t why: the configs tried, the best ones first */
/* -t why: what the screen tried first (the skills sent, the analyst's
 * transforms and notes) and the edits the worker refused */
static void why_first(FILE *out, const json_t *me)
{
	const json_t *ch = json_object_get(me, "chosen");
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(ch, "skills"), i, e)
		fprintf(out, "  skill                  %s\n", json_string_value(json_object_get(e, "skill")) ?: "?");
	json_array_foreach(json_object_get(ch, "transforms"), i, e) {
		const char *note = json_string_value(json_object_get(e, "note"));
		const char *edit = json_string_value(json_object_get(e, "edit"));
		struct strbuf sb = STRBUF_INIT;
		if (note)
			strbuf_addf(&sb, "note: %s", note);
		else if (edit && *edit)
			strbuf_addf(&sb, "%s: %s", edit, json_string_value(json_object_get(e, "why")) ?: "");
		else {
			config_text(&sb, json_object_get(e, "config"));
			strbuf_addf(&sb, ": %s", json_string_value(json_object_get(e, "why")) ?: "");
		}
		fprintf(out, "  analyst                %s\n", sb.buf);
		strbuf_release(&sb);
	}
	json_array_foreach(json_object_get(me, "refused"), i, e)
		fprintf(out, "  refused                %s: %s\n", json_string_value(json_object_get(e, "edit")) ?: "?",
			json_string_value(json_object_get(e, "why")) ?: "");
}

static void screen_why(struct dag *d, struct dag_node *n, FILE *out)
{
	json_t *me = json_object_get(dag_result(d, n), "meas");
	if (json_is_string(json_object_get(me, "skipped"))) {
		fprintf(out, "screen %s: nothing screened: %s\n", n->path, json_string_value(json_object_get(me, "skipped")));
		return;
	}
	if (json_is_string(json_object_get(me, "error"))) {
		fprintf(out, "screen %s: could not run: %s\n", n->path, json_string_value(json_object_get(me, "error")));
		return;
	}
	json_t *tried = json_object_get(me, "tried"), *best = json_object_get(me, "best");
	struct strbuf sb = STRBUF_INIT;
	fprintf(out, "screen %s: %zu configs tried alone, %zu best kept\n", n->path, json_array_size(tried),
		json_array_size(best));
	double secs = rule_num(me, "elapsed_s"), compiles = rule_num(me, "compiles");
	if (!isnan(secs))
		fprintf(out, "  seconds                %.1f%s\n", secs,
			json_is_true(json_object_get(me, "budget_spent")) ? " (its budget spent)" : "");
	double pre = rule_num(me, "prefetched");
	if (!isnan(compiles))
		fprintf(out, "  compiles               %.0f\n", compiles);
	if (pre > 0)
		fprintf(out, "  compiled ahead         %.0f (by the compile children)\n", pre);
	if (json_is_object(json_object_get(me, "own"))) {
		config_text(&sb, json_object_get(me, "own"));
		fprintf(out, "  own config             %s\n", sb.buf);
	}
	size_t i;
	json_t *r;
	why_first(out, me);
	json_array_foreach(best, i, r) {
		strbuf_reset(&sb);
		config_text(&sb, json_object_get(r, "config"));
		if (json_string_value(json_object_get(r, "edit")))
			strbuf_addf(&sb, " + %s", json_string_value(json_object_get(r, "edit")));
		fprintf(out, "  best %-17zu %s", i + 1, sb.buf);
		if (!isnan(rule_num(r, "speedup")))
			fprintf(out, "  %.3fx alone", rule_num(r, "speedup"));
		if (json_string_value(json_object_get(r, "skill")))
			fprintf(out, " (from the skill %s)", json_string_value(json_object_get(r, "skill")));
		else if (json_string_value(json_object_get(r, "transform")))
			fprintf(out, " (from the analyst: %s)", json_string_value(json_object_get(r, "transform")));
		fprintf(out, "\n");
	}
	fprintf(out, "  | # | config | speedup alone | lower quartile | time (us) | baseline (us) |\n"
		     "  | ---: | --- | ---: | ---: | ---: | ---: |\n");
	json_array_foreach(tried, i, r) {
		strbuf_reset(&sb);
		config_text(&sb, json_object_get(r, "config"));
		const char *edit = json_string_value(json_object_get(r, "edit"));
		if (edit && *edit)
			strbuf_addf(&sb, " + %s", edit);
		fprintf(out, "  | %zu | %s | ", i + 1, sb.buf);
		if (!json_is_true(json_object_get(r, "ok"))) {
			const char *e = json_string_value(json_object_get(r, "error"));
			for (e = e ? e : "failed"; *e && *e != '\n'; e++)
				fputc(*e == '|' ? '/' : *e, out);
			fprintf(out, " | | | |\n");
			continue;
		}
		fprintf(out, "%.3fx | %.3fx | %.3f | %.3f |\n", rule_num(r, "speedup"), rule_num(r, "q25"),
			rule_num(r, "ns") / 1000.0, rule_num(r, "base_ns") / 1000.0);
	}
	strbuf_release(&sb);
}

const struct rule rule_screen = {
	.name = "screen", .version = SCREEN_VERSION, .worker = true, .timing = true,
	.device = rule_device,
	.key = screen_key, .start = screen_start, .reply = screen_reply, .release = screen_release,
	.priority = screen_priority, .why = screen_why,
};
