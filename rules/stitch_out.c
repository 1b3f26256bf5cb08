/*
 * rules/stitch_out.c: what a stitch writes under kopt-out/<model>/ once it
 * has chosen (rules/stitch.c): substitutions.json, the format kopt.backend()
 * reads; output_code.py, the stitched code or the baseline's; for a Helion
 * kernel file helion.json, per @helion.kernel its winning helion.Config and
 * the decorator line to paste; report.md, which ends with every
 * candidate of every kernel; and seal.json, the seals of what kopt.backend
 * loads.
 */
#include <config.h>

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/cache.h"
#include "../engine/outdir.h"
#include "../engine/seal.h"
#include "measured.h"
#include "stitch.h"
#include "plan.h"
#include "report.h"
#include "propose.h"
#include "verify.h"
#include "screen.h"
#include "space.h"
#include "proto.h"
#include "outputs.h"
#include "common.h"

/* the model's candidates, kernel by kernel, in the order the agents made
 * them: what was tried, the verdict and why (each kernel's short-term
 * memory), and where its best came */
static void add_candidates(struct rule_run *run, struct strbuf *md)
{
	struct rule_model *dm = rule_model_of(run->node);
	bool head = false;
	for (size_t v = 0; v < dm->nmv; v++)
		for (size_t ki = 0; ki < dm->mvs[v].nkernels; ki++) {
			struct rule_kernel *k = &dm->mvs[v].kernels[ki];
			int best = -1, made = 0;
			double bx = 0;
			for (int i = 0; i < k->n; i++) {
				struct rule_proposal pr;
				struct rule_verdict vd;
				rule_proposal_read(run->dag, &k->cands[i], &pr);
				if (!pr.done || pr.none)
					continue;
				rule_verdict_read(run->dag, &k->cands[i], &vd);
				made++;
				if (vd.pass && !isnan(vd.speedup) && vd.speedup > bx) {
					bx = vd.speedup;
					best = i;
				}
			}
			if (!made)
				continue;
			if (!head) {
				strbuf_addstr(md, "\n## Candidates\n");
				head = true;
			}
			strbuf_addf(md, "\n%s (variant %s): %d candidate%s, ", k->name, dm->mvs[v].variant->name, made,
				    kopt_plural(made));
			if (best >= 0)
				strbuf_addf(md, "the best at c%d (%.3fx).\n\n", best, bx);
			else
				strbuf_addstr(md, "none passed.\n\n");
			/* what ranked the plan: the long-term memory, or the built-in order */
			struct rule_proposal p0;
			rule_proposal_read(run->dag, &k->cands[0], &p0);
			const char *planning = p0.cand.planning;
			if (planning)
				strbuf_addf(md, "%c%s.\n\n", toupper((unsigned char)planning[0]), planning + 1);
			rule_screen_md(run->dag, k, md);
			strbuf_addstr(md, "| # | strategy | verdict | kernel speedup | reason |\n| ---: | --- | --- | ---: | --- |\n");
			for (int i = 0; i < k->n; i++) {
				struct rule_proposal pr;
				struct rule_verdict vd;
				rule_proposal_read(run->dag, &k->cands[i], &pr);
				if (!pr.done || pr.none)
					continue;
				rule_verdict_read(run->dag, &k->cands[i], &vd);
				strbuf_addf(md, "| %d | %s | %s%s%s | ", i, pr.cand.strategy ? pr.cand.strategy : "-",
					    vd.error ? "error" : vd.verdict ? vd.verdict : "-", vd.gate ? " at " : "",
					    vd.gate ? vd.gate : "");
				if (isnan(vd.speedup))
					strbuf_addstr(md, "- | ");
				else
					strbuf_addf(md, "%.3fx | ", vd.speedup);
				/* a pass's reason is the gates' numbers, in -t why; a table cell
				 * is one line; an error's is why its step failed */
				const char *why = vd.pass ? "" : vd.error ? vd.failure : vd.reason ? vd.reason : "";
				if (vd.error && vd.failed_kind)
					strbuf_addf(md, "%s failed: ", vd.failed_kind);
				for (const char *c = why; *c; c++)
					strbuf_addch(md, *c == '|' ? '/' : *c == '\n' ? ' ' : *c);
				strbuf_addstr(md, " |\n");
			}
		}
}

/* a Helion config value as a Python literal */
static void py_literal(struct strbuf *sb, const json_t *v)
{
	size_t i;
	json_t *e;
	const char *k;
	switch (json_typeof(v)) {
	case JSON_TRUE: strbuf_addstr(sb, "True"); break;
	case JSON_FALSE: strbuf_addstr(sb, "False"); break;
	case JSON_NULL: strbuf_addstr(sb, "None"); break;
	case JSON_INTEGER: strbuf_addf(sb, "%lld", (long long)json_integer_value(v)); break;
	case JSON_REAL: strbuf_addf(sb, "%.17g", json_real_value(v)); break;
	case JSON_STRING: {
		char *t = json_dumps(v, JSON_ENCODE_ANY);
		strbuf_addstr(sb, t ? t : "''");
		free(t);
		break;
	}
	case JSON_ARRAY:
		strbuf_addch(sb, '[');
		json_array_foreach(v, i, e) {
			if (i)
				strbuf_addstr(sb, ", ");
			py_literal(sb, e);
		}
		strbuf_addch(sb, ']');
		break;
	case JSON_OBJECT:
		strbuf_addch(sb, '{');
		i = 0;
		json_object_foreach((json_t *)v, k, e) {
			json_t *ks = json_string(k);
			strbuf_addstr(sb, i++ ? ", " : "");
			py_literal(sb, ks);
			strbuf_addstr(sb, ": ");
			py_literal(sb, e);
			json_decref(ks);
		}
		strbuf_addch(sb, '}');
		break;
	}
}

/* @helion.kernel(config=helion.Config(KEY=VALUE, ...)) */
static void helion_decorator(struct strbuf *sb, const json_t *config)
{
	strbuf_addstr(sb, "@helion.kernel(config=helion.Config(");
	const char *k;
	json_t *v;
	int first = 1;
	json_object_foreach((json_t *)config, k, v) {
		strbuf_addf(sb, "%s%s=", first ? "" : ", ", k);
		py_literal(sb, v);
		first = 0;
	}
	strbuf_addstr(sb, "))");
}

/* the global name of the @helion.kernel that launches Triton kernel name
 * (the capture's inventory of mv), else name itself */
static const char *helion_var(struct dag *d, const struct rule_mv *mv, const char *name)
{
	json_t *e = rule_inventory_entry(dag_result(d, mv->capture), name);
	return e ? json_string_value(json_object_get(e, "helion_kernel")) : name;
}

/* helion.json: per @helion.kernel of a Helion kernel file, its winning
 * config, the line to paste and the kernel speedup; the kernels without a
 * winner keep their own config and are not listed. 0 or -1 */
static int write_helion(struct rule_run *run, const struct vres *b, bool optimized)
{
	struct rule_model *dm = rule_model_of(run->node);
	json_t *ks = json_object();
	size_t i;
	json_t *w;
	json_array_foreach(optimized ? b->winners : NULL, i, w) {
		struct agent_candidate c;
		if (agent_candidate_read(json_object_get(w, "proposal"), &c) < 0 || !json_is_object(c.config))
			continue;
		const char *tk = json_string_value(json_object_get(w, "kernel"));
		const char *var = helion_var(run->dag, &dm->mvs[0], tk);
		struct strbuf dec = STRBUF_INIT;
		helion_decorator(&dec, c.config);
		json_object_set_new(ks, var ? var : "?", json_pack("{s:O, s:s, s:s, s:O, s:s}", "config", c.config,
			"decorator", dec.buf, "triton_kernel", tk ? tk : "", "speedup", json_object_get(w, "speedup"),
			"strategy", c.strategy ? c.strategy : ""));
		strbuf_release(&dec);
	}
	json_t *doc = json_pack("{s:s, s:o}", "model", dm->spec->name, "kernels", ks);
	char *js = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(doc);
	char *rel = xasprintf("%s/helion.json", rule_model_dir(dm));
	int r = rule_output(run, rel, js, strlen(js));
	free(rel);
	free(js);
	return r;
}

/* substitutions.json: Inductor kernel source hash -> optimized source and
 * config, the format kopt.backend() reads (runtime/python/kopt/deploy.py);
 * output_code.py: the stitched code, or the baseline's. 0 or -1 */
int stitch_write_code(struct rule_run *run, struct stitch_priv *p, const struct choice *ch)
{
	struct rule_model *dm = rule_model_of(run->node);
	struct vres *b = &p->vr[ch->best];
	json_t *subs = json_object();
	size_t i;
	json_t *w;
	json_array_foreach(ch->optimized ? b->winners : NULL, i, w) {
		const char *sh = json_string_value(json_object_get(w, "source_hash"));
		struct agent_candidate c;
		agent_candidate_read(json_object_get(w, "proposal"), &c);
		json_t *sub = json_pack("{s:O, s:o, s:o, s:o, s:O}", "kernel", json_object_get(w, "kernel"),
					"source", c.source ? json_string(c.source) : json_null(),
					"config", c.config ? json_deep_copy(c.config) : json_null(),
					"strategy", c.strategy ? json_string(c.strategy) : json_null(),
					"speedup", json_object_get(w, "speedup"));
		if (c.edit) /* the source knobs that made it: deploy.py checks it is their text, or makes
			     * it from the kernel's own (a group's member: "from" its searched kernel) */
			json_object_set_new(sub, "edit", json_string(c.edit));
		if (json_is_string(json_object_get(w, "from")))
			json_object_set(sub, "from", json_object_get(w, "from"));
		json_object_set_new(subs, sh ? sh : json_string_value(json_object_get(w, "kernel")), sub);
	}
	/* the tolerances the deployment's first-call check compares with (deploy.py) */
	const struct kopt_gates *g = dm->spec->gates;
	json_t *sdoc = json_pack("{s:s, s:o, s:o, s:{s:f, s:f, s:f, s:f}}", "model", dm->spec->name, "variant",
				 rule_variant_json(dm->mvs[ch->best].variant), "kernels", subs, "gates", "atol", g->atol,
				 "rtol", g->rtol, "atol_half", g->atol_half, "rtol_half", g->rtol_half);
	/* the graph-cache keys the chosen variant's compile looked up (its
	 * profile's, runtime/python/kopt/graphkeys.py): kopt.backend names the
	 * parts of its own that differ where it compiles that variant anew */
	json_t *keys = json_object_get(rule_profile_meas(run->dag, &dm->mvs[ch->best]), "graph_keys");
	if (json_array_size(keys))
		json_object_set(sdoc, "graph_keys", keys);
	char *js = json_dumps(sdoc, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(sdoc);
	char *rel = xasprintf("%s/substitutions.json", rule_model_dir(dm));
	int r = rule_output(run, rel, js, strlen(js));
	free(rel);
	free(js);
	struct strbuf code = STRBUF_INIT;
	if (ch->optimized && b->passed && b->output_code) {
		strbuf_add(&code, json_string_value(b->output_code), json_string_length(b->output_code));
	} else {
		json_t *cr = dag_result(run->dag, dm->mvs[0].capture);
		kopt_hash h;
		const char *hex = json_string_value(json_object_get(json_object_get(cr, "stable"), "output_code"));
		if (!hex || hash_parse(hex, &h) < 0 || cache_object_get(run->dag->cache, h, &code) < 0)
			strbuf_addstr(&code, "# the baseline output code is missing from the cache\n");
	}
	rel = xasprintf("%s/output_code.py", rule_model_dir(dm));
	if (rule_output(run, rel, code.buf, code.len) < 0)
		r = -1;
	if (dm->spec->kind == KOPT_MODEL_HELION && write_helion(run, b, ch->optimized && b->passed) < 0)
		r = -1;
	free(rel);
	strbuf_release(&code);
	return r;
}

/* the files of kopt-out/<model>/ that kopt.backend and kopt.helion_config load */
static const char *const sealed[] = { "substitutions.json", "helion.json" };

void stitch_seal(struct dag *d, struct dag_node *n)
{
	static bool said;
	const char *dir = rule_model_dir(rule_model_of(n));
	json_t *outs = n->manifest ? dag_manifest_field(n->manifest, n->manifest_len, "outputs") : NULL;
	json_t *files = json_object();
	struct strbuf sb = STRBUF_INIT;
	bool ok = true;
	for (size_t i = 0; i < sizeof sealed / sizeof *sealed && ok; i++) {
		char *rel = xasprintf("%s/%s", dir, sealed[i]);
		json_t *v = json_object_get(outs, rel);
		const char *hex = json_string_value(json_is_object(v) ? json_object_get(v, "hash") : v);
		kopt_hash h;
		char mac[SEAL_HEX];
		/* the bytes the cache holds for the record (the user's own), not
		 * the file in kopt-out/, which anyone who can write there may change;
		 * the name is the file's path below kopt-out/, so that a seal holds
		 * for its model's folder alone (another model's table and seal
		 * copied into this one's are refused: engine/seal.h) */
		if (hex && hash_parse(hex, &h) == 0) {
			ok = cache_object_get(d->cache, h, &sb) == 0 &&
			     seal_make("output", rel, sb.buf ? sb.buf : "", sb.len, mac) == 0;
			if (ok)
				json_object_set_new(files, sealed[i], json_string(mac));
		}
		free(rel);
	}
	if (ok && json_object_size(files)) {
		json_t *doc = json_pack("{s:i, s:s, s:s, s:O}", "version", SEAL_OUTPUT_VERSION, "key", seal_key_id(),
					"folder", dir, "files", files);
		char *js = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
		char *path = xasprintf("%s/%s/seal.json", d->out_dir, dir);
		struct strbuf old = STRBUF_INIT;
		if (strbuf_read_file(&old, path) < 0 || strcmp(old.buf ? old.buf : "", js) != 0) {
			char *rel = xasprintf("%s/seal.json", dir);
			outdir_write(d->out_dir, rel, js, strlen(js));
			free(rel);
		}
		strbuf_release(&old);
		free(path);
		free(js);
		json_decref(doc);
	} else if (!ok && !said) {
		said = true;
		kopt_warn("kopt-out is not sealed (no seal key, or the cache lost a file): kopt.backend refuses "
			  "what it does not find sealed");
	}
	strbuf_release(&sb);
	json_decref(files);
	json_decref(outs);
}

/* the wall time Helion's autotuner took at effort over the file's kernels
 * (the profile's baselines), NAN where it did not run */
static double helion_wall(struct dag *d, const struct rule_mv *mv, const char *effort)
{
	const json_t *h = json_object_get(rule_profile_meas(d, mv), "helion");
	double wall = NAN;
	size_t i;
	json_t *hk;
	json_array_foreach(json_object_get(h, "kernels"), i, hk) {
		json_t *w = json_object_get(json_object_get(hk, effort), "wall_s");
		if (json_is_number(w))
			wall = (isnan(wall) ? 0 : wall) + json_number_value(w);
	}
	return wall;
}

/* a Helion kernel file: its launch with the kernels' own configs, with
 * Helion's autotuner's and with koptmake's, side by side in the stitch
 * (runtime/python/kopt/helion.py: race) */
static void helion_race_md(struct rule_run *run, const struct rule_mv *mv, const json_t *race, struct strbuf *md)
{
	if (!race)
		return;
	strbuf_addstr(md, "\n## Against Helion's autotuner\n\n");
	const char *err = json_string_value(json_object_get(race, "error"));
	double own = rule_num(race, "own_ns");
	if (err || !(own > 0)) {
		strbuf_addf(md, "Not measured: %s.\n", err ? err : "no time for the own configs");
		return;
	}
	strbuf_addstr(md, "The file's launch with each set of configs, timed side by side in the stitch (interleaved, "
			  "L2 flushed); the autotuner's wall time is its search's, in the profile.\n\n"
			  "| configs | us per call | vs own configs | search wall (s) |\n| --- | ---: | ---: | ---: |\n");
	static const char *const rows[][3] = { { "the kernels' own", "own_ns", NULL },
					       { "Helion's quick autotune", "quick_ns", "quick" },
					       { "Helion's full autotune", "full_ns", "full" },
					       { "koptmake's", "koptmake_ns", NULL } };
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		double ns = rule_num(race, rows[r][1]);
		if (!(ns > 0))
			continue;
		double wall = rows[r][2] ? helion_wall(run->dag, mv, rows[r][2]) : NAN;
		strbuf_addf(md, "| %s | %.3f | %.3fx | ", rows[r][0], ns / 1000.0, own / ns);
		if (isnan(wall))
			strbuf_addstr(md, "- |\n");
		else
			strbuf_addf(md, "%.1f |\n", wall);
	}
}

/* the stitch's table: a row per variant, "-" for the times of one left
 * out (it has none) */
static void variant_rows(struct strbuf *md, const struct rule_model *dm, const struct stitch_priv *p)
{
	strbuf_addstr(md, "| variant | stitch | baseline (us) | optimized (us) | attempts | reason |\n| --- | --- | ---: | ---: | ---: | --- |\n");
	for (size_t v = 0; v < dm->nmv; v++) {
		char bs[32] = "-", os[32] = "-";
		if (!isnan(p->vr[v].base_ns))
			snprintf(bs, sizeof bs, "%.3f", p->vr[v].base_ns / 1000.0);
		if (!isnan(p->vr[v].opt_ns))
			snprintf(os, sizeof os, "%.3f", p->vr[v].opt_ns / 1000.0);
		strbuf_addf(md, "| %s | %s | %s | %s | %d | %s |\n", dm->mvs[v].variant->name,
			    p->vr[v].unusable ? "not run" : p->vr[v].passed ? "pass" : "fail", bs, os, p->vr[v].attempts,
			    p->vr[v].reason ? p->vr[v].reason : "");
	}
}

/* the hot kernels that stand for a group (rules/groups.c): the kernels of
 * one class, searched once */
static void groups_md(const struct rule_model *dm, struct strbuf *md)
{
	struct strbuf g = STRBUF_INIT;
	for (size_t v = 0; v < dm->nmv; v++)
		for (size_t ki = 0; ki < dm->mvs[v].nkernels; ki++) {
			const struct rule_kernel *k = &dm->mvs[v].kernels[ki];
			if (!k->nmembers)
				continue;
			strbuf_addf(&g, "| %s | %s | %zu | %.1f%% | ", dm->mvs[v].variant->name, k->name, k->nmembers + 1,
				    k->share * 100);
			for (size_t i = 0; i < k->nmembers; i++)
				strbuf_addf(&g, "%s%s", i ? ", " : "", k->members[i]);
			strbuf_addstr(&g, " |\n");
		}
	if (g.len)
		strbuf_addf(md, "\n## Kernel groups\n\nHot kernels that stand for a group: Inductor's kernels of one "
				"class (the same source but for their names and sizes, as a network's blocks repeat "
				"them), hot by their shares' sum. The searched kernel's winner is put on every "
				"other kernel of its group, each checked in the stitched model with the rest.\n\n"
				"| variant | searched kernel | kernels | group's share | the others |\n"
				"| --- | --- | ---: | ---: | --- |\n%s", g.buf);
	strbuf_release(&g);
}

/* the model's report.md */
void stitch_model_md(struct rule_run *run, struct stitch_priv *p, const struct choice *ch, struct strbuf *md)
{
	struct rule_model *dm = rule_model_of(run->node);
	struct vres *b = &p->vr[ch->best];
	strbuf_addf(md, "# %s\n\n", dm->name);
	rule_measured_md(md, json_object_get(run->meas, "measured"));
	if (ch->withheld)
		strbuf_addf(md, "Not optimized, no speedup claimed: %s.\n\n", p->vr[0].reason);
	else if (ch->optimized)
		strbuf_addf(md, "Optimized (variant %s%s): %.3f us -> %.3f us per call, speedup %.3fx.\n\n",
			    dm->mvs[ch->best].variant->name, b->passed ? "" : ", its compiled code alone",
			    ch->base / 1000.0, ch->opt / 1000.0, ch->speedup);
	else
		strbuf_addf(md, "Baseline kept: no verified winner survived stitching (%.3f us per call).\n\n",
			    ch->base / 1000.0);
	if (p->race_ns)
		strbuf_addstr(md, "Times in the first variant's terms: the variants' baselines were raced side by side.\n\n");
	else if (p->race_error)
		strbuf_addf(md, "The variants could not be raced side by side (%s): each variant's times are its own "
				"stitch's, measured apart.\n\n", p->race_error);
	variant_rows(md, dm, p);
	if (dm->nmv > 1) {
		strbuf_addstr(md, "\n| variant | compiled with |\n| --- | --- |\n");
		for (size_t v = 0; v < dm->nmv; v++) {
			char *what = rule_variant_what(dm->mvs[v].variant);
			strbuf_addf(md, "| %s | %s%s |\n", dm->mvs[v].variant->name, what,
				    v >= dm->spec->nvariants ? " (added by the agents)" : "");
			free(what);
		}
	}
	/* each variant's bound (its profile's, rules/profile.c) and its times over it */
	struct strbuf bd = STRBUF_INIT;
	for (size_t v = 0; v < dm->nmv; v++) {
		const json_t *pm = rule_profile_meas(run->dag, &dm->mvs[v]);
		double bound = rule_num(pm, "bound_ns_per_call");
		if (!(bound > 0) || p->vr[v].unusable)
			continue;
		strbuf_addf(&bd, "| %s | %.3f | %.3f | %.2fx |", dm->mvs[v].variant->name, bound / 1000.0,
			    rule_num(pm, "host_ns_per_call") / 1000.0, p->vr[v].base_ns / bound);
		if (p->vr[v].passed)
			strbuf_addf(&bd, " %.2fx |\n", p->vr[v].opt_ns / bound);
		else
			strbuf_addstr(&bd, " - |\n");
	}
	if (bd.len)
		strbuf_addf(md, "\n## Bounds\n\nEach variant's time if its Triton kernels ran at the copy bandwidth or the "
				"FP32 peak, whichever binds, and its vendor kernels and host took their measured times "
				"(its profile); its baseline and optimized times over it.\n\n"
				"| variant | bound (us) | of it, host (us) | baseline over bound | optimized over bound |\n"
				"| --- | ---: | ---: | ---: | ---: |\n%s", bd.buf);
	strbuf_release(&bd);
	groups_md(dm, md);
	rule_capture_md(run->dag, dm, md);
	bool any = false;
	for (size_t v = 0; v < dm->nmv; v++)
		any |= dm->mvs[v].summary.baseline != GATE_BASE_UNCHECKED;
	if (any) {
		strbuf_addstr(md, "\n## Compiled baselines against eager\n\n"
				  "Each variant's compiled code on the gates' seeds against eager PyTorch, and against the "
				  "float64 reference where they differ; a variant that fails claims no speedup and gets no "
				  "candidates.\n\n| variant | check | why |\n| --- | --- | --- |\n");
		for (size_t v = 0; v < dm->nmv; v++)
			strbuf_addf(md, "| %s | %s | %s |\n", dm->mvs[v].variant->name,
				    gate_baseline_name(dm->mvs[v].summary.baseline),
				    dm->mvs[v].summary.baseline_why ? dm->mvs[v].summary.baseline_why : "-");
	}
	size_t i;
	json_t *w;
	if (ch->optimized) {
		strbuf_addstr(md, "\n| kernel | strategy | kernel speedup |\n| --- | --- | ---: |\n");
		json_array_foreach(b->winners, i, w) {
			struct agent_candidate c;
			agent_candidate_read(json_object_get(w, "proposal"), &c);
			const char *from = json_string_value(json_object_get(w, "from"));
			strbuf_addf(md, "| %s | %s%s%s%s | %.3fx%s |\n", json_string_value(json_object_get(w, "kernel")),
				    c.strategy ? c.strategy : "-", from ? " (its group's, found for " : "",
				    from ? from : "", from ? ")" : "", rule_num(w, "speedup"), from ? " (its group's)" : "");
		}
	}
	if (ch->optimized && dm->spec->kind == KOPT_MODEL_HELION) {
		strbuf_addstr(md, "\n## Deployment\n\nPaste each line above its kernel in the file (or load "
				  "`kopt.helion_config(\"kopt-out/MODEL\", \"NAME\")` from helion.json):\n\n");
		json_array_foreach(b->winners, i, w) {
			struct agent_candidate c;
			if (agent_candidate_read(json_object_get(w, "proposal"), &c) < 0 || !json_is_object(c.config))
				continue;
			const char *tk = json_string_value(json_object_get(w, "kernel"));
			const char *var = helion_var(run->dag, &dm->mvs[0], tk);
			strbuf_addf(md, "    # %s (%s, %.3fx)\n    ", var ? var : "?", tk ? tk : "?", rule_num(w, "speedup"));
			helion_decorator(md, c.config);
			strbuf_addch(md, '\n');
		}
	}
	if (dm->spec->kind == KOPT_MODEL_HELION)
		helion_race_md(run, &dm->mvs[ch->best], b->helion_race, md);
	strbuf_addstr(md, "\nVerdicts of all candidates:");
	const char *gk;
	json_t *gv;
	json_object_foreach(p->counts, gk, gv)
		strbuf_addf(md, " %s %lld;", gk, (long long)json_integer_value(gv));
	strbuf_addch(md, '\n');
	if (json_array_size(p->alone)) {
		strbuf_addstr(md, "\nKernels without candidates:\n\n");
		json_array_foreach(p->alone, i, w)
			strbuf_addf(md, "- %s (variant %s): %s\n", json_string_value(json_object_get(w, "kernel")),
				    json_string_value(json_object_get(w, "variant")),
				    json_string_value(json_object_get(w, "reason")));
	}
	rule_llm_usage(run->dag, dm, md);
	add_candidates(run, md);
}
