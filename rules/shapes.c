/*
 * rules/shapes.c: a model served at several shapes (kopt(5), shape).
 *
 * Each shape is a rule_model of its own, planned as a model without shapes
 * is (rules/plan.c): its steps are named MODEL@SHAPE/..., its outputs go to
 * kopt-out/MODEL/SHAPE/, and every step of its variants keys on the
 * shape's names and values (rule_key_shape, spliced into the variant's
 * key), so a shape added to the spec adds steps and changes none of the
 * others'. The model itself keeps no variants: its deploy step joins the
 * shapes' stitches (rules/deploy.c).
 *
 * One search for the kernels the shapes share. Inductor compiles each
 * static shape anew, and a kernel of one shape is the same text at another
 * but for its sizes; the kernel groups of a variant (rules/groups.c) keep
 * size hints to a power of four, and batch sizes are further apart than
 * that, so across shapes a kernel's class is its source with every number
 * taken out, size hints too (rule_shape_class). A hot kernel whose class a
 * chain of an earlier shape (the spec's order) already searches, in the
 * same variant, gets no chain of its own: it takes that chain's winner,
 * put on its own text as a group's member is (its config, its source
 * knobs), and its stitch checks it in the stitched model at its shape,
 * kernel by kernel: a winner slower there than the shape's own kernel is
 * left off (rules/stitch.c). For that, a shape's chains wait for every
 * earlier shape's (rule_expand_chains), and its stitch comes after the
 * earlier shape's (DAG_EDGE_AFTER: no key of one reads the other's result;
 * under -n a shape does not wait, and lists what is known then).
 * The searched chain and its verifies are the earlier shape's, and the
 * later stitch keys on them: adding a shape at the end reruns no step of
 * the others.
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "plan.h"
#include "groups.h"
#include "chains.h"
#include "shapes.h"
#include "common.h"

uint64_t rule_shape_class(const char *src, const char *name)
{
	if (!src || !*src)
		return 0;
	struct strbuf sb = STRBUF_INIT;
	const char *p = src;
	for (const char *h; (h = strstr(p, "size_hints={")); ) {
		strbuf_add(&sb, p, (size_t)(h - p) + 11);
		int depth = 0;
		for (p = h + 11; *p; p++) {
			depth += *p == '{' ? 1 : *p == '}' ? -1 : 0;
			bool digit = *p >= '0' && *p <= '9';
			if (!digit)
				strbuf_addch(&sb, *p);
			else if (!(p[-1] >= '0' && p[-1] <= '9'))
				strbuf_addch(&sb, '1'); /* each number, one */
			if (depth == 0) {
				p++;
				break;
			}
		}
	}
	strbuf_addstr(&sb, p);
	uint64_t c = rule_kernel_class(sb.buf, name);
	strbuf_release(&sb);
	return c;
}

/* k's class across shapes, read once from its capture's source object;
 * UINT64_MAX where it has none */
static uint64_t kernel_shape_class(struct dag *d, struct rule_kernel *k)
{
	if (k->shape_cls)
		return k->shape_cls;
	k->shape_cls = UINT64_MAX;
	json_t *e = (k->mv->capture->flags & DAG_DONE) ? rule_inventory_entry(dag_result(d, k->mv->capture), k->name)
						       : NULL;
	const char *hex = json_string_value(json_object_get(e, "source_obj"));
	kopt_hash h;
	struct strbuf sb = STRBUF_INIT;
	if (hex && hash_parse(hex, &h) == 0 && cache_object_get(d->cache, h, &sb) == 0 && sb.len) {
		uint64_t c = rule_shape_class(sb.buf, k->name);
		if (c)
			k->shape_cls = c;
	}
	strbuf_release(&sb);
	return k->shape_cls;
}

const struct rule_kernel *rule_shape_via(struct dag *d, struct rule_kernel *k)
{
	const struct rule_model *dm = k->mv->model, *pm = dm->parent;
	if (!pm || kernel_shape_class(d, k) == UINT64_MAX)
		return NULL;
	for (size_t s = 0; s < pm->nshapes && pm->shapes[s] != dm; s++) {
		struct rule_model *sm = pm->shapes[s];
		for (size_t v = 0; v < sm->nmv; v++) {
			struct rule_mv *mv = &sm->mvs[v];
			if (!hash_eq(mv->variant_id, k->mv->variant_id))
				continue;
			for (size_t i = 0; i < mv->nkernels; i++) {
				struct rule_kernel *o = &mv->kernels[i];
				if (o->n > 0 && !o->via && kernel_shape_class(d, o) == k->shape_cls)
					return o;
			}
		}
	}
	return NULL;
}

bool rule_shapes_ready(struct dag *d, const struct rule_model *dm)
{
	const struct rule_model *pm = dm->parent;
	/* -n: with what is known now (an earlier shape whose profile would run
	 * has no chains yet); a build waits for them */
	if (d->opts && d->opts->dry_run)
		return true;
	for (size_t s = 0; pm && s < pm->nshapes && pm->shapes[s] != dm; s++)
		if (!pm->shapes[s]->chains_done)
			return false;
	return true;
}

void rule_shapes_next(struct dag *d, const struct rule_model *dm)
{
	const struct rule_model *pm = dm->parent;
	size_t s = 0;
	while (pm && s < pm->nshapes && pm->shapes[s] != dm)
		s++;
	for (s++; pm && s < pm->nshapes; s++)
		rule_expand_chains(d, pm->shapes[s]);
}

void rule_key_shape(struct hash_key *k, const struct kopt_shape *sh)
{
	if (!sh)
		return;
	/* its names and values in the names' order: not its name, and not the
	 * order they are written in */
	size_t *ord = xcalloc(sh->nset + 1, sizeof *ord);
	for (size_t i = 0; i < sh->nset; i++) {
		size_t j = i;
		for (; j > 0 && strcmp(sh->set[ord[j - 1]].key, sh->set[i].key) > 0; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < sh->nset; i++)
		strbuf_addf(&sb, "%s=%s\n", sh->set[ord[i]].key, sh->set[ord[i]].json);
	hash_key_str(k, "param:shape", sb.buf ? sb.buf : "");
	strbuf_release(&sb);
	/* each shape compiled static (kopt/inductor.py, dynamic=False): the
	 * steps from before, whose compiles torch had made dynamic where the
	 * file was compiled at another shape first, are keyed out */
	hash_key_str(k, "param:shape_compile", "static");
	free(ord);
}

void rule_plan_shapes(struct dag *d, struct rule_model *dm)
{
	struct rule_plan *pl = d->plan;
	const struct kopt_model *m = dm->spec;
	dm->shapes = xcalloc(m->nshapes, sizeof *dm->shapes);
	dm->deploy = dag_add_at(d, RULE_DEPLOY, dm->name, dm);
	for (size_t i = 0; i < m->nshapes; i++) {
		struct rule_model *sm = &pl->models[pl->nmodels++];
		char *name = xasprintf("%s@%s", m->name, m->shapes[i].name);
		char *dir = xasprintf("%s/%s", m->name, m->shapes[i].name);
		rule_plan_model(d, sm, m, &m->shapes[i], name, dir);
		free(name);
		free(dir);
		sm->parent = dm;
		dm->shapes[dm->nshapes++] = sm;
		/* soft: with -k, the deployment leaves a shape that failed out,
		 * and says why */
		dag_add_dep(dm->deploy, sm->stitch, DAG_EDGE_SOFT);
		if (i > 0)
			dag_add_dep(sm->stitch, dm->shapes[i - 1]->stitch, DAG_EDGE_SOFT | DAG_EDGE_AFTER);
	}
}

/* the row of doc's "models" for the stitch at path, or NULL (a failed one
 * has none) */
static json_t *row_of(json_t *doc, const char *path)
{
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(doc, "models"), i, o)
		if (strcmp(json_string_value(json_object_get(o, "model")) ?: "", path) == 0)
			return o;
	return NULL;
}

void rule_report_shapes(const struct dag_node *n, json_t *doc, struct strbuf *md)
{
	json_t *all = json_array();
	struct strbuf rows = STRBUF_INIT;
	for (uint32_t i = 0; i < n->ndeps; i++) {
		const struct rule_model *sm = rule_model_of(n->deps[i].node), *pm = sm->parent;
		if (!pm || pm->shapes[0] != sm)
			continue; /* a model's shapes are taken together, at its first */
		double ls = 0, la = 0;
		size_t ns = 0, na = 0;
		json_t *names = json_array();
		strbuf_addf(&rows, "| %s |", pm->name);
		for (size_t s = 0; s < pm->nshapes; s++) {
			json_t *o = row_of(doc, pm->shapes[s]->name);
			double sp = rule_num(o, "speedup"), sa = rule_num(o, "speedup_vs_max_autotune");
			json_array_append_new(names, json_string(pm->shapes[s]->shape->name));
			if (o) {
				json_object_set_new(o, "shape", json_string(pm->shapes[s]->shape->name));
				json_object_set_new(o, "of", json_string(pm->name));
			}
			if (sp > 0) {
				ls += log(sp);
				ns++;
			}
			if (sa > 0) {
				la += log(sa);
				na++;
			}
			strbuf_addf(&rows, "%s%s ", s ? ", " : " ", pm->shapes[s]->shape->name);
			if (sp > 0)
				strbuf_addf(&rows, "%.3fx", sp);
			else
				strbuf_addstr(&rows, o ? "-" : "failed");
			if (sa > 0)
				strbuf_addf(&rows, " (%.3fx)", sa);
		}
		double g = ns ? exp(ls / (double)ns) : NAN, ga = na ? exp(la / (double)na) : NAN;
		strbuf_addstr(&rows, " |");
		strbuf_addf(&rows, ns ? " %.3fx |" : " - |", g);
		strbuf_addf(&rows, na ? " %.3fx |\n" : " - |\n", ga);
		json_t *e = json_pack("{s:s, s:o}", "model", pm->name, "shapes", names);
		json_object_set_new(e, "geomean_speedup", rule_num_json(g));
		json_object_set_new(e, "geomean_speedup_vs_max_autotune", rule_num_json(ga));
		json_array_append_new(all, e);
	}
	if (json_array_size(all)) {
		json_object_set(doc, "shapes", all);
		strbuf_addf(md, "\n## Shapes\n\n"
				"Models served at several shapes (kopt(5), shape): each shape is a row of the table above, "
				"MODEL@SHAPE, and here its speedup over torch.compile (over max-autotune-no-cudagraphs in "
				"brackets, where the model has that variant), and the geometric means over the model's "
				"shapes. kopt-out/MODEL/ is the deployment that serves them all.\n\n"
				"| model | shapes | geomean | geomean vs max-autotune |\n| --- | --- | ---: | ---: |\n%s",
			    rows.buf);
	}
	strbuf_release(&rows);
	json_decref(all);
}
