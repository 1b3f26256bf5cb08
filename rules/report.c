/*
 * rules/report.c: the report of a target, in the koptmake process:
 * kopt-out/<target>/report.json and report.md with per model the baseline
 * and optimized times, the speedup and the verdict counts per gate, the
 * geometric mean speedup and fast_p (the share of models that are correct
 * and more than p times faster) at p = 1.0, 1.03, 1.5 and 2; and
 * speedup.svg, a bar per model (rules/svg.h).
 *
 * Key: the target's name and its models' stitch stable hashes.
 */
#define _GNU_SOURCE
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "svg.h"

static const double fast_ps[] = { 1.0, 1.03, 1.5, 2.0 };
#define NP (sizeof fast_ps / sizeof *fast_ps)

static int report_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)d;
	(void)why;
	hash_key_str(k, "param:target", n->target->name);
	for (uint32_t i = 0; i < n->ndeps; i++)
		rule_key_input(k, n->deps[i]);
	return 0;
}

static int report_start(struct rule_run *run)
{
	struct dag_node *n = run->node;
	json_t *models = json_array(), *stable = json_array();
	double logsum = 0;
	struct svg_bar *bars = xcalloc(n->ndeps + 1, sizeof *bars);
	size_t nsp = 0, fast[NP] = { 0 };
	json_t *totals = json_object();
	struct strbuf md = STRBUF_INIT;
	strbuf_addf(&md, "# Report: %s\n\n| model | variant | baseline (us) | optimized (us) | speedup | verdict | candidates |\n"
			 "| --- | --- | ---: | ---: | ---: | --- | --- |\n", n->target->name);
	for (uint32_t i = 0; i < n->ndeps; i++) {
		struct dag_node *s = n->deps[i];
		json_t *r = dag_result(run->dag, s);
		if (!r) {
			json_decref(models);
			json_decref(stable);
			json_decref(totals);
			strbuf_release(&md);
			free(bars);
			return rule_fail(run, "the stitch result of %s is missing from the cache", s->path);
		}
		json_t *st = json_object_get(r, "stable"), *me = json_object_get(r, "meas");
		double base = rule_num(me, "base_ns"), opt = rule_num(me, "opt_ns"), sp = rule_num(me, "speedup");
		char hex[HASH_HEX];
		hash_hex(s->out, hex);
		json_array_append_new(stable, json_pack("[s, s]", s->path, hex));
		json_t *counts = json_object_get(st, "verdicts");
		json_t *o = json_pack("{s:s, s:O, s:O}", "model", s->path, "variant",
				      json_object_get(st, "variant"), "verdict", json_object_get(st, "verdict"));
		json_object_set_new(o, "verdicts", counts ? json_incref(counts) : json_object());
		json_object_set_new(o, "baseline_ns", isnan(base) ? json_null() : json_real(base));
		json_object_set_new(o, "optimized_ns", isnan(opt) ? json_null() : json_real(opt));
		json_object_set_new(o, "speedup", isnan(sp) ? json_null() : json_real(sp));
		json_array_append_new(models, o);
		bars[i].label = s->path;
		bars[i].value = sp;
		bars[i].note = json_string_value(json_object_get(st, "verdict")) &&
			       strcmp(json_string_value(json_object_get(st, "verdict")), "baseline") == 0 ? "baseline kept" : NULL;
		if (!isnan(sp) && sp > 0) {
			logsum += log(sp);
			nsp++;
			for (size_t p = 0; p < NP; p++)
				if (sp > fast_ps[p])
					fast[p]++;
		}
		struct strbuf cs = STRBUF_INIT;
		const char *gk;
		json_t *gv;
		json_object_foreach(counts, gk, gv) {
			strbuf_addf(&cs, "%s%s %lld", cs.len ? ", " : "", gk, (long long)json_integer_value(gv));
			json_object_set_new(totals, gk, json_integer(json_integer_value(json_object_get(totals, gk)) +
								     json_integer_value(gv)));
		}
		strbuf_addf(&md, "| %s | %s | %.3f | %.3f | %.3fx | %s | %s |\n", s->path,
			    json_string_value(json_object_get(st, "variant")) ? json_string_value(json_object_get(st, "variant")) : "-",
			    base / 1000.0, opt / 1000.0, sp,
			    json_string_value(json_object_get(st, "verdict")) ? json_string_value(json_object_get(st, "verdict")) : "-",
			    cs.len ? cs.buf : "-");
		strbuf_release(&cs);
	}
	double geo = nsp ? exp(logsum / (double)nsp) : NAN;
	size_t nm = n->ndeps;
	json_t *fp = json_object();
	strbuf_addf(&md, "\nGeometric mean speedup: %.3fx over %zu models.\n\n| p | fast_p |\n| ---: | ---: |\n", geo, nm);
	for (size_t p = 0; p < NP; p++) {
		char key[16];
		snprintf(key, sizeof key, "%g", fast_ps[p]);
		double f = nm ? (double)fast[p] / (double)nm : 0;
		json_object_set_new(fp, key, json_real(f));
		strbuf_addf(&md, "| %s | %.3f |\n", key, f);
	}
	json_t *doc = json_pack("{s:s, s:o, s:o, s:o}", "target", n->target->name, "models", models,
				"fast_p", fp, "verdicts", totals);
	json_object_set_new(doc, "geomean_speedup", isnan(geo) ? json_null() : json_real(geo));
	char *js = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	char *rel = xasprintf("%s/report.json", n->target->name);
	int r = rule_output(run, rel, js, strlen(js));
	free(rel);
	free(js);
	rel = xasprintf("%s/report.md", n->target->name);
	if (rule_output(run, rel, md.buf, md.len) < 0)
		r = -1;
	free(rel);
	/* speedup.svg: a bar per model, the geomean */
	char *svg = NULL;
	size_t svglen = 0;
	FILE *sf = open_memstream(&svg, &svglen);
	if (sf) {
		char *title = xasprintf("%s: speedup over torch.compile", n->target->name);
		svg_bars(sf, title, bars, n->ndeps, geo);
		free(title);
		fclose(sf);
		rel = xasprintf("%s/speedup.svg", n->target->name);
		if (rule_output(run, rel, svg, svglen) < 0)
			r = -1;
		free(rel);
		free(svg);
	}
	free(bars);
	strbuf_release(&md);
	run->stable = json_pack("{s:s, s:o}", "target", n->target->name, "models", stable);
	run->meas = json_pack("{s:O, s:O}", "geomean_speedup", json_object_get(doc, "geomean_speedup"),
			      "fast_p", json_object_get(doc, "fast_p"));
	json_decref(doc);
	if (r < 0)
		return rule_fail(run, "cannot write the report");
	return RULE_DONE;
}

const struct rule rule_report = {
	.name = "report", .version = 1, .worker = false, .timing = false,
	.key = report_key, .start = report_start,
};
