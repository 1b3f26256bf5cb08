/*
 * rules/deploy.c: a model served at several shapes, joined into one
 * deployment (kopt(5), shape), in the koptmake process (no worker).
 *
 * Each shape's stitch wrote its own kopt-out/MODEL/SHAPE/substitutions.json
 * (rules/stitch_out.c). This step writes kopt-out/MODEL/substitutions.json,
 * the file kopt.backend("kopt-out/MODEL") reads, in its second form:
 *
 *     {"model": M, "shapes": [{"shape": NAME, "set": {NAME: value},
 *       "inputs": [{"shape": [..], "dtype": ".."}], "variant": {..},
 *       "kernels": {..}, "gates": {..}, "speedup": X}, ...],
 *      "failed": [{"shape": NAME, "reason": ".."}]}
 *
 * each shape's table as its stitch wrote it, with the shape's names and
 * values and its inputs' shapes and dtypes (its first variant's capture),
 * which the deployment dispatches on (runtime/python/kopt/deploy.py); a
 * shape whose build failed (-k) is listed with why, and served with
 * Inductor's code. And kopt-out/MODEL/report.md: every shape's times and
 * speedups over torch.compile and over max-autotune, with their geometric
 * means over the shapes; each shape's own report is in its folder. Its
 * done hook seals the joined table as a stitch seals its own
 * (stitch_seal).
 *
 * Key: the model, and per shape its stitch's stable hash and whole result
 * (the report shows its times) or why it failed, and its first capture's
 * result (the inputs). Stable part: the model and its shapes' stitches'
 * stable hashes. Measurements: per shape its speedups, and the geomeans.
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stitch.h"
#include "plan.h"
#include "space.h"
#include "proto.h"
#include "keys.h"
#include "outputs.h"
#include "common.h"

static int deploy_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)d;
	(void)why;
	const struct rule_model *dm = rule_model_of(n);
	hash_key_str(k, "param:model", dm->name);
	for (size_t i = 0; i < dm->nshapes; i++) {
		const struct rule_model *sm = dm->shapes[i];
		const struct dag_node *s = sm->stitch;
		hash_key_str(k, "param:shape_name", sm->shape->name);
		if (s->flags & DAG_FAILED) {
			const struct dag_node *f = rule_failure_of(s);
			char *r = xasprintf("%s %s: %s", f->rule->name, f->path, f->why ? f->why : "failed");
			hash_key_str(k, "failed:stitch", r);
			free(r);
			continue;
		}
		rule_key_input(k, s);
		if (s->manifest)
			hash_key_hash(k, "result:stitch", hash_bytes(s->manifest, s->manifest_len));
		const struct dag_node *c = sm->nmv ? sm->mvs[0].capture : NULL;
		if (c && c->manifest)
			hash_key_hash(k, "result:capture", hash_bytes(c->manifest, c->manifest_len));
	}
	return 0;
}

/* the output rel of a done step, parsed; NULL when missing */
static json_t *output_json(struct dag *d, struct dag_node *n, const char *rel)
{
	json_t *v = json_object_get(json_object_get(dag_result(d, n), "outputs"), rel);
	const char *hex = json_string_value(json_is_object(v) ? json_object_get(v, "hash") : v);
	kopt_hash h;
	struct strbuf sb = STRBUF_INIT;
	json_t *doc = NULL;
	if (hex && hash_parse(hex, &h) == 0 && cache_object_get(d->cache, h, &sb) == 0)
		doc = json_loadb(sb.buf ? sb.buf : "", sb.len, 0, NULL);
	strbuf_release(&sb);
	return doc;
}

static void cell(struct strbuf *md, double v, const char *fmt)
{
	if (isnan(v))
		strbuf_addstr(md, " - |");
	else
		strbuf_addf(md, fmt, v);
}

/* "1x1024 float32, 16 float32": the tensor inputs a capture made */
static void inputs_cell(struct strbuf *md, const json_t *inputs)
{
	size_t i, j;
	json_t *x, *dim;
	json_array_foreach(inputs, i, x) {
		strbuf_addstr(md, i ? ", " : " ");
		json_array_foreach(json_object_get(x, "shape"), j, dim)
			strbuf_addf(md, "%s%lld", j ? "x" : "", (long long)json_integer_value(dim));
		strbuf_addf(md, " %s", json_string_value(json_object_get(x, "dtype")) ?: "?");
	}
	strbuf_addstr(md, json_array_size(inputs) ? " |" : " - |");
}

/* what the step gathers over the shapes */
struct joined {
	json_t *shapes, *failed, *stable, *rows;
	struct strbuf md;
	double logsum, at_logsum;
	size_t nsp, nat;
};

/* shape sm, its stitch s done: its table into j->shapes, its row */
static int join_shape(struct rule_run *run, struct joined *j, struct rule_model *sm, struct dag_node *s)
{
	json_t *r = dag_result(run->dag, s);
	char *rel = xasprintf("%s/substitutions.json", rule_model_dir(sm));
	json_t *tab = r ? output_json(run->dag, s, rel) : NULL;
	free(rel);
	if (!json_is_object(tab)) {
		json_decref(tab);
		return rule_fail(run, "the stitch result of %s or its substitutions.json is missing from the cache", s->path);
	}
	json_t *st = json_object_get(r, "stable"), *me = json_object_get(r, "meas");
	const char *verdict = json_string_value(json_object_get(st, "verdict"));
	bool withheld = verdict && (strcmp(verdict, "wrong-baseline") == 0 || strcmp(verdict, "ill-conditioned") == 0);
	double base = withheld ? NAN : rule_num(me, "base_ns"), opt = withheld ? NAN : rule_num(me, "opt_ns");
	double sp = withheld ? NAN : rule_num(me, "speedup");
	double at = withheld ? NAN : rule_num(rule_report_autotune_variant(s, me), "base_ns");
	double sp_at = at > 0 && opt > 0 ? at / opt : NAN;
	json_t *model = rule_model_json(sm);
	json_t *inputs = json_object_get(json_object_get(dag_result(run->dag, sm->mvs[0].capture), "meas"), "inputs");
	json_object_set_new(tab, "shape", json_string(sm->shape->name));
	json_object_set(tab, "set", json_object_get(model, "shape"));
	json_object_set(tab, "inputs", json_is_array(inputs) ? inputs : json_null());
	json_object_set_new(tab, "speedup", rule_num_json(sp));
	json_object_del(tab, "model");
	json_array_append_new(j->shapes, tab);
	json_decref(model);
	char hex[HASH_HEX];
	hash_hex(s->out, hex);
	json_array_append_new(j->stable, json_pack("[s, s]", sm->shape->name, hex));
	json_t *row = json_pack("{s:s, s:O, s:s}", "shape", sm->shape->name, "variant",
				json_object_get(st, "variant") ?: json_null(), "verdict", verdict ? verdict : "-");
	json_object_set_new(row, "baseline_ns", rule_num_json(base));
	json_object_set_new(row, "max_autotune_ns", rule_num_json(at));
	json_object_set_new(row, "optimized_ns", rule_num_json(opt));
	json_object_set_new(row, "speedup", rule_num_json(sp));
	json_object_set_new(row, "speedup_vs_max_autotune", rule_num_json(sp_at));
	json_array_append_new(j->rows, row);
	if (sp > 0) {
		j->logsum += log(sp);
		j->nsp++;
	}
	if (sp_at > 0) {
		j->at_logsum += log(sp_at);
		j->nat++;
	}
	strbuf_addf(&j->md, "| %s |", sm->shape->name);
	inputs_cell(&j->md, inputs);
	strbuf_addf(&j->md, " %s |", json_string_value(json_object_get(st, "variant")) ?: "-");
	cell(&j->md, base / 1e3, " %.3f |");
	cell(&j->md, at / 1e3, " %.3f |");
	cell(&j->md, opt / 1e3, " %.3f |");
	cell(&j->md, sp, " %.3fx |");
	cell(&j->md, sp_at, " %.3fx |");
	strbuf_addf(&j->md, " %s |\n", verdict ? verdict : "-");
	return RULE_DONE;
}

static int deploy_start(struct rule_run *run)
{
	struct rule_model *dm = rule_model_of(run->node);
	struct joined j = { json_array(), json_array(), json_array(), json_array(), STRBUF_INIT, 0, 0, 0, 0 };
	int st = RULE_DONE;
	const char *od = run->dag->out_dir;
	od = strncmp(od, "./", 2) == 0 && od[2] ? od + 2 : od;
	strbuf_addf(&j.md, "# %s\n\nServed at %zu shapes, each built as a model of its own (its report: %s/%s/SHAPE/"
			   "report.md). `kopt.backend(\"%s/%s\")` serves each with its own winners, and a shape outside "
			   "them with Inductor's code.\n\n| shape | inputs | variant | baseline (us) | max-autotune (us) | "
			   "optimized (us) | speedup | vs max-autotune | verdict |\n| --- | --- | --- | ---: | ---: | ---: | "
			   "---: | ---: | --- |\n", dm->name, dm->nshapes, od, dm->dir, od, dm->dir);
	for (size_t i = 0; i < dm->nshapes && st == RULE_DONE; i++) {
		struct rule_model *sm = dm->shapes[i];
		struct dag_node *s = sm->stitch;
		if (s->flags & DAG_FAILED) {
			const struct dag_node *f = rule_failure_of(s);
			char *r = xasprintf("%s %s failed: %s", f->rule->name, f->path, f->why ? f->why : "no reason given");
			json_array_append_new(j.failed, json_pack("{s:s, s:s}", "shape", sm->shape->name, "reason", r));
			strbuf_addf(&j.md, "| %s | - | - | - | - | - | - | - | failed |\n", sm->shape->name);
			free(r);
			continue;
		}
		st = join_shape(run, &j, sm, s);
	}
	if (st == RULE_DONE && json_array_size(j.shapes) == 0)
		st = rule_fail(run, "no shape of %s was built", dm->name);
	if (st == RULE_DONE) {
		double geo = j.nsp ? exp(j.logsum / (double)j.nsp) : NAN;
		double geo_at = j.nat ? exp(j.at_logsum / (double)j.nat) : NAN;
		if (j.nsp)
			strbuf_addf(&j.md, "\nGeometric mean speedup over the %zu shape%s with one: %.3fx over torch.compile.\n",
				    j.nsp, kopt_plural(j.nsp), geo);
		if (j.nat)
			strbuf_addf(&j.md, "Geometric mean speedup over max-autotune-no-cudagraphs: %.3fx over the %zu shape%s "
					   "that %s that variant.\n", geo_at, j.nat, kopt_plural(j.nat), j.nat == 1 ? "has" : "have");
		size_t k;
		json_t *f;
		json_array_foreach(j.failed, k, f)
			strbuf_addf(&j.md, "%sShape %s: %s\n", k ? "" : "\n", json_string_value(json_object_get(f, "shape")),
				    json_string_value(json_object_get(f, "reason")));
		json_t *doc = json_pack("{s:s, s:O, s:O}", "model", dm->name, "shapes", j.shapes, "failed", j.failed);
		char *js = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
		char *rel = xasprintf("%s/substitutions.json", rule_model_dir(dm));
		int r = rule_output(run, rel, js, strlen(js));
		free(rel);
		free(js);
		json_decref(doc);
		rel = xasprintf("%s/report.md", rule_model_dir(dm));
		if (rule_output(run, rel, j.md.buf, j.md.len) < 0)
			r = -1;
		free(rel);
		run->stable = json_pack("{s:s, s:O}", "model", dm->name, "shapes", j.stable);
		run->meas = json_pack("{s:O, s:o, s:o}", "shapes", j.rows, "geomean_speedup", rule_num_json(geo),
				      "geomean_speedup_vs_max_autotune", rule_num_json(geo_at));
		if (r < 0)
			st = rule_fail(run, "cannot write the deployment of %s", dm->name);
	}
	json_decref(j.shapes);
	json_decref(j.failed);
	json_decref(j.stable);
	json_decref(j.rows);
	strbuf_release(&j.md);
	return st;
}

const struct rule rule_deploy = {
	.name = "deploy", .version = 1, .worker = false, .timing = false,
	.restore = rule_restore_outputs, .done = stitch_seal,
	.key = deploy_key, .start = deploy_start,
};
