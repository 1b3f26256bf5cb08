/*
 * rules/report.c: the report of a target, in the koptmake process:
 * kopt-out/<target>/report.json and report.md with per model the baseline
 * and optimized times, the speedup and the verdict counts per gate, the
 * geometric mean speedup and fast_p (the share of models that are correct
 * and more than p times faster) at p = 1, the default gamma, 1.5 and 2; where a model
 * also has a compile variant in a max-autotune mode, the speedup over that
 * baseline too (the one a user would pick instead; both baselines are
 * measured in the same run); each variant's bound (its profile's: the
 * Triton kernels at the copy bandwidth or FP32 peak, the vendor kernels
 * and the host at their times) and its times over it, the model's bound
 * the lowest of them, and max-autotune's time over it: how much room the
 * user's other choice leaves; speedup.svg, a bar per model, and
 * roofline.svg, the hot Triton kernels' achieved FLOP/s against their
 * arithmetic intensity under the measured roofs, before and, for the
 * winners, after (rules/svg.h).
 *
 * Key: the target's name, its models' stitch stable hashes, and the
 * whole results (measurements too) of those stitches and of the models'
 * profiles: a model rerun with the same verdict still refreshes the report.
 */
#define _GNU_SOURCE
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measured.h"
#include "plan.h"
#include "shapes.h"
#include "report.h"
#include "screen.h"
#include "space.h"
#include "keys.h"
#include "outputs.h"
#include "vendor.h"
#include "common.h"
#include "svg.h"

/* fast_p's thresholds: 1, the gates' default gamma, 1.5 and 2 */
#define NP 4
static double fast_p(size_t i)
{
	static const double ps[NP] = { 1.0, 0, 1.5, 2.0 };
	return i == 1 ? lang_gates_default.gamma : ps[i];
}
static int report_key(struct dag *d, struct dag_node *n, struct hash_key *k, char **why)
{
	(void)d;
	(void)why;
	hash_key_str(k, "param:target", rule_target_of(n)->name);
	for (uint32_t i = 0; i < n->ndeps; i++) {
		const struct dag_node *s = n->deps[i].node;
		if (s->flags & DAG_FAILED) {
			/* -k: a model that failed is listed with its reason */
			const struct dag_node *f = rule_failure_of(s);
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb, "%s %s: %s", f->rule->name, f->path, f->why ? f->why : "failed");
			hash_key_str(k, "failed:stitch", sb.buf);
			strbuf_release(&sb);
			continue;
		}
		rule_key_input(k, s);
		/* the report shows measurements (times, vendor calls, bandwidths)
		 * that the stable parts leave out: it follows the stitches' and
		 * profiles' whole results, and costs no worker */
		if (s->manifest)
			hash_key_hash(k, "result:stitch", hash_bytes(s->manifest, s->manifest_len));
		for (size_t v = 0; v < rule_model_of(s)->nmv; v++) {
			const struct dag_node *pr = rule_model_of(s)->mvs[v].profile;
			if (pr && pr->manifest)
				hash_key_hash(k, "result:profile", hash_bytes(pr->manifest, pr->manifest_len));
		}
		rule_key_screens(k, rule_model_of(s)); /* their GPU time */
	}
	return 0;
}

/* the variant choice from the stitch's per-variant times (rule_pick_variant) */
static void chosen_variant(const struct dag_node *s, const json_t *meas, double *base, double *opt, double *sp,
			   const char **verdict)
{
	json_t *vars = json_object_get(meas, "variants");
	size_t n = json_array_size(vars);
	if (!n)
		return;
	double *vb = xcalloc(n, sizeof *vb), *vo = xcalloc(n, sizeof *vo);
	bool *vp = xcalloc(n, sizeof *vp);
	json_t *rounds = json_array(); /* the race's rounds, as the stitch chose with them */
	for (size_t v = 0; v < n; v++) {
		json_t *x = json_array_get(vars, v), *r = json_object_get(x, "race_rounds");
		json_array_append(rounds, json_is_array(r) ? r : json_null());
		vb[v] = rule_num(x, "base_ns");
		vo[v] = rule_num(x, "opt_ns");
		const char *vd = json_string_value(json_object_get(x, "verdict"));
		vp[v] = vd && strcmp(vd, "pass") == 0 && json_array_size(json_object_get(x, "winners")) > 0;
	}
	size_t best;
	bool optimized = rule_pick_variant(vb, vo, vp, rounds, n, rule_model_of(s)->spec->gates->gamma, &best);
	json_decref(rounds);
	*base = vb[0];
	*opt = optimized ? (vp[best] ? vo[best] : vb[best]) : vb[0];
	*sp = *base > 0 && *opt > 0 ? *base / *opt : NAN;
	*verdict = optimized ? "optimized" : "baseline";
	free(vb);
	free(vo);
	free(vp);
}

/* seconds workers spent on the model's steps, by kind; screens are listed
 * only where some model of the target was screened, so that a target
 * without screening reports as it did before screens existed */
enum { COST_CAPTURE, COST_PROFILE, COST_SCREEN, COST_VERIFY, COST_STITCH, NCOST };
static const char *const cost_kinds[NCOST] = { "capture", "profile", "screen", "verify", "stitch" };

/* a step's share of its GPU's time (steps that compiled side by side
 * split theirs: engine/gpu_meter.h); a step recorded before the share
 * was, its time in a worker */
static double step_seconds(struct dag *d, struct dag_node *n)
{
	const json_t *meas = n ? json_object_get(dag_result(d, n), "meas") : NULL;
	double t = rule_num(meas, "gpu_s");
	if (isnan(t))
		t = rule_num(meas, "worker_s");
	return isnan(t) ? 0 : t;
}

/* the model's hot kernels that stand for a group of one class
 * (rules/groups.c): [{variant, kernel, kernels, share}] */
static json_t *kernel_groups(const struct dag_node *s)
{
	const struct rule_model *dm = rule_model_of(s);
	json_t *out = json_array();
	for (size_t v = 0; v < dm->nmv; v++)
		for (size_t ki = 0; ki < dm->mvs[v].nkernels; ki++) {
			const struct rule_kernel *k = &dm->mvs[v].kernels[ki];
			if (k->nmembers)
				json_array_append_new(out, json_pack("{s:s, s:s, s:I, s:f}", "variant",
					dm->mvs[v].variant->name, "kernel", k->name, "kernels",
					(json_int_t)(k->nmembers + 1), "share", k->share));
		}
	return out;
}

/* fills cost[NCOST]; returns their sum */
static double worker_seconds(struct dag *d, const struct dag_node *s, double *cost)
{
	const struct rule_model *dm = rule_model_of(s);
	json_t *meas = json_object_get(dag_result(d, (struct dag_node *)s), "meas");
	memset(cost, 0, NCOST * sizeof *cost);
	cost[COST_STITCH] = step_seconds(d, (struct dag_node *)s);
	/* a stitch answered from its memo: the time those requests took when measured */
	double re = rule_num(json_object_get(meas, "requests"), "replayed_s");
	cost[COST_STITCH] += isnan(re) ? 0 : re;
	for (size_t v = 0; v < dm->nmv; v++) {
		const struct rule_mv *mv = &dm->mvs[v];
		cost[COST_CAPTURE] += step_seconds(d, mv->capture);
		cost[COST_PROFILE] += step_seconds(d, mv->profile);
		for (size_t ki = 0; ki < mv->nkernels; ki++) {
			cost[COST_SCREEN] += rule_screen_seconds(d, &mv->kernels[ki]);
			for (int c = 0; c < mv->kernels[ki].n; c++)
				cost[COST_VERIFY] += step_seconds(d, mv->kernels[ki].cands[c].verify);
		}
	}
	double sum = 0;
	for (int k = 0; k < NCOST; k++)
		sum += cost[k];
	return sum;
}

/* the stitch's entry of a variant whose code runs as CUDA graphs (the
 * agents' autotune-cudagraphs, a declared mode max-autotune), or NULL: a
 * win by CUDA graphs is also put against it (report.json) */
static const json_t *graphs_variant(const struct dag_node *s, const json_t *meas)
{
	const struct rule_model *dm = rule_model_of(s);
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(meas, "variants"), i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		for (size_t j = 0; name && j < dm->nmv; j++)
			if (strcmp(dm->mvs[j].variant->name, name) == 0 && rule_variant_graphs(dm->mvs[j].variant))
				return v;
	}
	return NULL;
}

/* what a report gathers over its models */
struct report {
	const char *target;
	json_t *models;              /* report.json's, one object each */
	json_t *stable;              /* [path, stitch hash] each */
	json_t *totals;              /* verdict counts over the models */
	struct strbuf md;            /* report.md, the model table first */
	struct strbuf vmd, smd, hmd; /* rows: vendor calls, implementation space, host time */
	struct strbuf bmd;           /* rows: models whose compiled baseline failed its check */
	struct strbuf cmd;           /* rows: GPU seconds by step kind */
	double cost[NCOST];          /* their totals */
	bool screened;               /* a model's kernels were screened: screens have a column */
	struct svg_bar *bars;        /* speedup.svg */
	struct svg_point *pts;       /* roofline.svg */
	size_t npts, ptscap;
	double peak;                 /* the copy bandwidth, GB/s */
	double fpeak;                /* the FP32 peak, GFLOP/s */
	struct strbuf rmd;           /* rows: each variant's bound and its times over it */
	double bound_logsum;         /* of max-autotune's time over the bound */
	size_t nbound;               /* models with that figure */
	double logsum, at_logsum;    /* of the speedups, over torch.compile and over max-autotune */
	size_t nsp, nat, nbelow;     /* models with a speedup, with a max-autotune variant, behind it */
	size_t fast[NP];             /* models faster than fast_p(p) */
	const json_t *newest;        /* the newest measurement shown (rules/measured.c) */
	json_t *failed;              /* report.json's models that failed (-k): {model, step, reason} */
	struct strbuf fmd;           /* their rows */
	size_t noptimized, nbaseline;
	const json_t **measured;     /* each model's newest; borrowed */
};

/* the model variant of dm named name, or NULL */
static const struct rule_mv *mv_named(const struct rule_model *dm, const char *name)
{
	for (size_t v = 0; name && v < dm->nmv; v++)
		if (strcmp(dm->mvs[v].variant->name, name) == 0)
			return &dm->mvs[v];
	return NULL;
}

static bool is_hot(const struct rule_mv *mv, const char *name)
{
	for (size_t k = 0; k < mv->nkernels; k++)
		if (strcmp(mv->kernels[k].name, name) == 0)
			return true;
	return false;
}

/* roofline points: the chosen variant's hot Triton kernels whose FLOPs
 * and bytes are known (FLOP per byte across, FLOP per ns = GFLOP/s up),
 * and the winners after, at the same intensity, their speedup higher; the
 * device's roofs from its profile */
static void roofline_points(struct dag *d, const struct dag_node *s, const json_t *st, const json_t *meas,
			    struct report *rp)
{
	const char *variant = json_string_value(json_object_get(st, "variant"));
	const struct rule_mv *mv = mv_named(rule_model_of(s), variant);
	if (!mv)
		return;
	json_t *pm = rule_profile_meas(d, mv);
	double pk = rule_num(pm, "peak_copy_gbps"), fp = rule_num(pm, "peak_fp32_gflops");
	if (!isnan(pk))
		rp->peak = pk;
	if (!isnan(fp))
		rp->fpeak = fp;
	json_t *winners = NULL, *vv;
	size_t i;
	json_array_foreach(json_object_get(meas, "variants"), i, vv)
		if (json_string_value(json_object_get(vv, "name")) &&
		    strcmp(json_string_value(json_object_get(vv, "name")), variant) == 0)
			winners = json_object_get(vv, "winners");
	json_t *row;
	json_array_foreach(json_object_get(pm, "rows"), i, row) {
		double ns = rule_num(row, "ns_per_call"), fl = rule_num(row, "flops"), by = rule_num(row, "bytes");
		double l = rule_num(row, "launches_per_call"), f = rule_num(row, "frac_peak"), fb = rule_num(row, "frac_bound");
		const char *name = json_string_value(json_object_get(row, "name"));
		/* argument bytes over the copy bandwidth are not traffic, nor
		 * FLOPs over the peak work (agents/builtin/plan.c,
		 * OVERSTATED): no point */
		if (!name || !is_hot(mv, name) || !(ns > 0) || !(fl > 0) || !(by > 0) || (!isnan(f) && f > 1.05) ||
		    (!isnan(fb) && fb > 1.05))
			continue;
		double gflops = fl * (l > 0 ? l : 1) / ns;
		rp->pts = xgrow(rp->pts, &rp->ptscap, rp->npts + 2, sizeof *rp->pts);
		rp->pts[rp->npts++] = (struct svg_point){ name, fl / by, gflops, 0 };
		size_t j;
		json_t *w;
		json_array_foreach(winners, j, w) {
			const char *wk = json_string_value(json_object_get(w, "kernel"));
			double sp = rule_num(w, "speedup");
			if (wk && strcmp(wk, name) == 0 && sp > 0)
				rp->pts[rp->npts++] = (struct svg_point){ name, fl / by, gflops * sp, 1 };
		}
	}
}

static void cell(struct strbuf *md, double v, const char *fmt)
{
	if (isnan(v))
		strbuf_addstr(md, " - |");
	else
		strbuf_addf(md, fmt, v);
}

/*
 * The bounds of model s: each variant's (its profile's: its kernels'
 * bounds and its host time, rules/profile.c) with its baseline and
 * optimized times over it, as rows of the Bounds section and into
 * o["bounds"]; the model's bound is the lowest of its variants'. Sets
 * *bound, and *at_ceiling, max-autotune's time over the model's bound
 * (NAN without that variant).
 */
static void model_bounds(struct dag *d, struct report *rp, const struct dag_node *s, const json_t *me, json_t *o,
			 double *bound, double *at_ceiling)
{
	const struct rule_model *dm = rule_model_of(s);
	json_t *arr = json_array();
	*bound = *at_ceiling = NAN;
	double at = NAN;
	const char *at_name = json_string_value(json_object_get(rule_report_autotune_variant(s, me), "name"));
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(me, "variants"), i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		const struct rule_mv *mv = mv_named(dm, name);
		if (!mv)
			continue;
		json_t *pm = rule_profile_meas(d, mv);
		double b = rule_num(pm, "bound_ns_per_call"), host = rule_num(pm, "host_ns_per_call");
		double base = rule_num(v, "base_ns"), opt = rule_num(v, "opt_ns");
		const char *vd = json_string_value(json_object_get(v, "verdict"));
		if (!(vd && strcmp(vd, "pass") == 0))
			opt = NAN;
		bool mat = at_name && strcmp(name, at_name) == 0;
		if (!(b > 0))
			b = NAN;
		if (!isnan(b) && (isnan(*bound) || b < *bound))
			*bound = b;
		if (mat)
			at = base;
		json_array_append_new(arr, json_pack("{s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:o}", "variant", name,
						     "max_autotune", mat, "bound_ns", rule_num_json(b),
						     "host_ns", rule_num_json(host), "baseline_ns", rule_num_json(base),
						     "baseline_over_bound", rule_num_json(base / b),
						     "optimized_ns", rule_num_json(opt),
						     "optimized_over_bound", rule_num_json(opt / b)));
		strbuf_addf(&rp->rmd, "| %s | %s%s |", s->path, name, mat ? " (max-autotune)" : "");
		cell(&rp->rmd, b / 1000.0, " %.3f |");
		cell(&rp->rmd, host / 1000.0, " %.3f |");
		cell(&rp->rmd, base / 1000.0, " %.3f |");
		cell(&rp->rmd, base / b, " %.2fx |");
		cell(&rp->rmd, opt / 1000.0, " %.3f |");
		cell(&rp->rmd, opt / b, " %.2fx |");
		strbuf_addch(&rp->rmd, '\n');
	}
	*at_ceiling = at / *bound;
	json_object_set_new(o, "bounds", arr);
	json_object_set_new(o, "bound_ns", rule_num_json(*bound));
	json_object_set_new(o, "max_autotune_over_bound", rule_num_json(*at_ceiling));
}

/* the vendor calls (GEMMs, convolutions) of the chosen variant's profile,
 * rows for md (rule_vendor_rows) */
static json_t *vendor_calls(struct dag *d, const struct dag_node *s, const json_t *st, double gamma,
			    struct strbuf *md)
{
	const char *variant = json_string_value(json_object_get(st, "variant"));
	const struct rule_model *dm = rule_model_of(s);
	json_t *calls = NULL;
	for (size_t v = 0; v < dm->nmv && !calls; v++)
		if (!variant || strcmp(dm->mvs[v].variant->name, variant) == 0)
			calls = json_object_get(json_object_get(rule_profile_meas(d, &dm->mvs[v]),
								"vendor"), "calls");
	rule_vendor_rows(md, s->path, calls, gamma);
	return calls ? json_deep_copy(calls) : json_array();
}

static void svg_output(struct rule_run *run, const char *target, const char *file, int *r,
		       void (*draw)(FILE *, void *), void *ctx)
{
	char *svg = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&svg, &len);
	if (!f) {
		*r = -1;
		return;
	}
	draw(f, ctx);
	fclose(f);
	char *rel = xasprintf("%s/%s", target, file);
	if (rule_output(run, rel, svg, len) < 0)
		*r = -1;
	free(rel);
	free(svg);
}

struct bars_ctx { const char *title; struct svg_bar *bars; size_t n; double geo, geo_at; };
struct roof_ctx { const char *title; struct svg_point *pts; size_t n; double copy, fpeak; };

static void draw_bars(FILE *f, void *c)
{
	struct bars_ctx *b = c;
	svg_bars(f, b->title, b->bars, b->n, b->geo, b->geo_at);
}

static void draw_roof(FILE *f, void *c)
{
	struct roof_ctx *x = c;
	svg_roofline(f, x->title, x->pts, x->n, x->copy, x->fpeak);
}

/* the name of the agents' ATen-fallback variant of dm, or NULL */
static const char *auto_aten(const struct rule_model *dm)
{
	for (size_t v = dm->spec->nvariants; v < dm->nmv; v++)
		if (strcmp(dm->mvs[v].variant->name, RULE_AUTO_VARIANT) == 0)
			return RULE_AUTO_VARIANT;
	return NULL;
}


static void report_init(struct report *rp, const char *target, size_t nmodels)
{
	memset(rp, 0, sizeof *rp);
	rp->target = target;
	rp->models = json_array();
	rp->stable = json_array();
	rp->totals = json_object();
	rp->failed = json_array();
	strbuf_init(&rp->fmd);
	strbuf_init(&rp->md);
	strbuf_init(&rp->vmd);
	strbuf_init(&rp->smd);
	strbuf_init(&rp->hmd);
	strbuf_init(&rp->bmd);
	strbuf_init(&rp->cmd);
	strbuf_init(&rp->rmd);
	rp->bars = xcalloc(nmodels + 1, sizeof *rp->bars);
	rp->measured = xcalloc(nmodels + 1, sizeof *rp->measured);
	rp->peak = rp->fpeak = NAN;
	/* the title and the measurements' date go before it (report_head) */
	strbuf_addstr(&rp->md, "Baseline: torch.compile with Inductor's defaults (the model's first variant). "
			     "max-autotune: the model's variant in mode max-autotune-no-cudagraphs, where it has one.\n\n"
			     "Bound: the model's time if its Triton kernels ran at the copy bandwidth or the FP32 peak, "
			     "whichever binds, and its vendor kernels and its host took their measured times (the lowest "
			     "over its variants; the Bounds section has each). Over bound: a time over that bound.\n\n"
			     "| model | variant | baseline (us) | max-autotune (us) | optimized (us) | speedup | vs max-autotune | verdict | candidates | GPU-minutes | bound (us) | optimized over bound | max-autotune over bound |\n"
			     "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: |\n");
}

double rule_tenth_minutes(double s)
{
	return round(s / 6.0) / 10.0;
}

/* the GPU time table's cells by step kind, screens only where screened:
 * the kinds' names, cell for each, or vals[kind] in minutes */
static void gpu_time_columns(struct strbuf *md, const struct report *rp, const char *cell, const double *vals)
{
	for (int k = 0; k < NCOST; k++) {
		if (k == COST_SCREEN && !rp->screened)
			continue;
		if (vals)
			strbuf_addf(md, " %.1f |", rule_tenth_minutes(vals[k]));
		else
			strbuf_addf(md, " %s |", cell ? cell : cost_kinds[k]);
	}
}

static void report_release(struct report *rp)
{
	json_decref(rp->models);
	json_decref(rp->stable);
	json_decref(rp->totals);
	json_decref(rp->failed);
	strbuf_release(&rp->fmd);
	strbuf_release(&rp->md);
	strbuf_release(&rp->vmd);
	strbuf_release(&rp->smd);
	strbuf_release(&rp->hmd);
	strbuf_release(&rp->bmd);
	strbuf_release(&rp->cmd);
	strbuf_release(&rp->rmd);
	free(rp->bars);
	free(rp->pts);
	free(rp->measured);
}

/* the title, and when and on what: the newest measurement, and how many
 * models were measured in another environment; before the rest of md */
static void report_head(struct report *rp, size_t nm)
{
	struct strbuf head = STRBUF_INIT;
	strbuf_addf(&head, "# Report: %s\n\n", rp->target);
	rule_measured_md(&head, rp->newest);
	size_t nother = 0;
	for (size_t i = 0; i < nm; i++)
		nother += rp->measured[i] &&
			  !json_equal(json_object_get(rp->measured[i], "env"), json_object_get(rp->newest, "env"));
	if (nother)
		strbuf_addf(&head, "%zu of the models %s measured in another environment: report.json has each "
				   "model's.\n\n", nother, nother == 1 ? "was" : "were");
	strbuf_add(&head, rp->md.buf, rp->md.len);
	strbuf_release(&rp->md);
	rp->md = head;
}

/* the host's share of a call (CUDA-event time less the time its kernels
 * run, rule_kernels_ns) in a profile's measurements; NAN unknown */
static double host_share(const json_t *p, double *mns, double *dns)
{
	*mns = rule_num(p, "model_ns_per_call");
	*dns = rule_kernels_ns(p);
	return rule_host_share(*mns, *dns);
}

/* the first variant's profile: the host's share of a call into o and, at
 * RULE_HOST_SHARE or more, a host-time row; the same for the chosen variant
 * where it is another (a rewrite that leaves little device time makes a
 * model host-bound); the implementation space's row; its eager run into o */
static void profile_parts(struct dag *d, struct report *rp, const struct dag_node *s, const json_t *me, json_t *o,
			  double gamma)
{
	const struct rule_model *dm = rule_model_of(s);
	const json_t **meas = xcalloc(dm->nmv + 1, sizeof *meas);
	for (size_t v = 0; v < dm->nmv; v++)
		meas[v] = rule_profile_meas(d, &dm->mvs[v]);
	json_t *p0 = (json_t *)meas[0];
	rule_report_device_speedups(s, meas, me, o);
	char dsp[32] = "-";
	double ds = rule_num(o, "device_speedup");
	if (ds > 0)
		snprintf(dsp, sizeof dsp, "%.3fx", ds);
	const char *chosen = json_string_value(json_object_get(o, "variant"));
	bool first_chosen = !chosen || strcmp(chosen, dm->mvs[0].variant->name) == 0;
	double mns, dns, host = host_share(p0, &mns, &dns);
	double chosen_host = first_chosen ? host : NAN, cmns = NAN, cdns = NAN;
	for (size_t v = 1; !first_chosen && v < dm->nmv; v++)
		if (strcmp(dm->mvs[v].variant->name, chosen) == 0 && meas[v])
			chosen_host = host_share(meas[v], &cmns, &cdns);
	bool first_hosty = !isnan(host) && host >= RULE_HOST_SHARE;
	bool chosen_row = !first_chosen && !isnan(chosen_host) && chosen_host >= RULE_HOST_SHARE;
	json_object_set_new(o, "host_share", rule_num_json(host));
	/* the device speedup on the chosen variant's row, or on the first's
	 * where the chosen one has none */
	if (first_hosty)
		strbuf_addf(&rp->hmd, "| %s | %s | %.3f | %.3f | %.0f%% | %s |\n", s->path, dm->mvs[0].variant->name,
			    mns / 1000.0, dns / 1000.0, 100.0 * host, chosen_row ? "-" : dsp);
	if (chosen_row)
		strbuf_addf(&rp->hmd, "| %s | %s (chosen) | %.3f | %.3f | %.0f%% | %s |\n", s->path, chosen,
			    cmns / 1000.0, cdns / 1000.0, 100.0 * chosen_host, dsp);
	/* the chosen variant's share, and whether the speedup per call is
	 * host-bound: the quotient of the first variant's time and the chosen
	 * one's moves with the host's speed where either call is a fifth or
	 * more the host's (SwinTransformerV2: its first variant's call 44% the
	 * host's, the chosen one's less; its deployment measured 1.654x per
	 * call against the report's 1.284x). The one rule that the deployment
	 * check (tests/gpu/deploy.py) and the benchmark's summary read, rather
	 * than each applying RULE_HOST_SHARE */
	json_object_set_new(o, "chosen_host_share", rule_num_json(chosen_host));
	json_object_set_new(o, "host_bound", json_boolean(first_hosty || chosen_row));
	size_t ndecl = dm->spec->nvariants < dm->nmv ? dm->spec->nvariants : dm->nmv;
	rule_space_rows(&rp->smd, dm->spec, meas, ndecl, gamma, auto_aten(dm));
	free(meas);
	if (json_object_get(p0, "eager"))
		json_object_set(o, "eager", json_object_get(p0, "eager"));
}

/* model i of the report, its stitch s with result r */
static void report_model(struct dag *d, struct report *rp, uint32_t i, const struct dag_node *s, json_t *r)
{
	json_t *st = json_object_get(r, "stable"), *me = json_object_get(r, "meas");
	double base = rule_num(me, "base_ns"), opt = rule_num(me, "opt_ns"), sp = rule_num(me, "speedup");
	const char *verdict = json_string_value(json_object_get(st, "verdict"));
	const struct kopt_gates *gates = rule_model_of(s)->spec->gates;
	/* a model whose first compiled variant failed its check against eager
	 * claims nothing (stitch.c); else the choice from the variants' times */
	bool withheld = verdict && (strcmp(verdict, "wrong-baseline") == 0 || strcmp(verdict, "ill-conditioned") == 0);
	if (withheld) {
		base = opt = sp = NAN;
		strbuf_addf(&rp->bmd, "| %s | %s | %s |\n", s->path, verdict,
			    json_string_value(json_object_get(me, "withheld")) ? json_string_value(json_object_get(me, "withheld")) : "-");
	} else {
		chosen_variant(s, me, &base, &opt, &sp, &verdict);
	}
	double at = withheld ? NAN : rule_num(rule_report_autotune_variant(s, me), "base_ns"), sp_at = at > 0 && opt > 0 ? at / opt : NAN;
	if (!isnan(sp_at)) {
		rp->at_logsum += log(sp_at);
		rp->nat++;
	}
	roofline_points(d, s, st, me, rp);
	double cost[NCOST];
	double gpu_min = rule_tenth_minutes(worker_seconds(d, s, cost));
	char hex[HASH_HEX];
	hash_hex(s->out, hex);
	json_array_append_new(rp->stable, json_pack("[s, s]", s->path, hex));
	json_t *counts = json_object_get(st, "verdicts");
	json_t *o = json_pack("{s:s, s:O, s:s}", "model", s->path, "variant",
			      json_object_get(st, "variant"), "verdict", verdict ? verdict : "-");
	json_object_set_new(o, "verdicts", counts ? json_incref(counts) : json_object());
	json_object_set_new(o, "baseline_ns", rule_num_json(base));
	json_object_set_new(o, "optimized_ns", rule_num_json(opt));
	json_object_set_new(o, "speedup", rule_num_json(sp));
	json_object_set_new(o, "max_autotune_ns", rule_num_json(at));
	json_object_set_new(o, "gpu_minutes", json_real(gpu_min));
	/* GPU-minutes by step kind, to a tenth as the total (steady across
	 * rebuilds and machines; bench/cost/summarize.py reads the build log
	 * for seconds) */
	json_t *gs = json_object();
	strbuf_addf(&rp->cmd, "| %s |", s->path);
	for (int k = 0; k < NCOST; k++) {
		double t = rule_tenth_minutes(cost[k]);
		if (k == COST_SCREEN && !rp->screened)
			continue;
		json_object_set_new(gs, cost_kinds[k], json_real(t));
		rp->cost[k] += cost[k];
		strbuf_addf(&rp->cmd, " %.1f |", t);
	}
	strbuf_addf(&rp->cmd, " %.1f |\n", gpu_min);
	json_object_set_new(o, "gpu_minutes_by_step", gs);
	json_object_set_new(o, "kernel_groups", kernel_groups(s));
	json_object_set_new(o, "capture", rule_capture_phases(d, rule_model_of(s)));
	json_object_set_new(o, "speedup_vs_max_autotune", rule_num_json(sp_at));
	/* over max-autotune with CUDA graphs, where such a variant was raced:
	 * a fair figure for a model whose call is mostly the host's */
	double ag = withheld ? NAN : rule_num(graphs_variant(s, me), "base_ns");
	json_object_set_new(o, "speedup_vs_max_autotune_cudagraphs", rule_num_json(ag > 0 && opt > 0 ? ag / opt : NAN));
	json_object_set_new(o, "vendor", vendor_calls(d, s, st, gates->gamma, &rp->vmd));
	double bound, at_ceiling;
	model_bounds(d, rp, s, me, o, &bound, &at_ceiling);
	json_object_set_new(o, "optimized_over_bound", rule_num_json(opt / bound));
	if (at_ceiling > 0) {
		rp->bound_logsum += log(at_ceiling);
		rp->nbound++;
	}
	const struct rule_model *dm = rule_model_of(s);
	const json_t *mnew = rule_measured_of(d, (struct dag_node *)s);
	for (size_t v = 0; v < dm->nmv; v++)
		mnew = rule_measured_newer(mnew, rule_measured_of(d, dm->mvs[v].profile));
	json_object_set_new(o, "measured", rule_measured_json(mnew));
	rp->measured[i] = mnew;
	rp->newest = rule_measured_newer(rp->newest, mnew);
	profile_parts(d, rp, s, me, o, gates->gamma);
	json_array_append_new(rp->models, o);
	rp->bars[i].label = s->path;
	rp->bars[i].value = sp;
	rp->bars[i].value2 = sp_at;
	rp->bars[i].note = verdict && strcmp(verdict, "baseline") == 0 ? "baseline kept" : NULL;
	rp->noptimized += verdict && strcmp(verdict, "optimized") == 0;
	rp->nbaseline += verdict && strcmp(verdict, "baseline") == 0;
	if (!isnan(sp) && sp > 0) {
		rp->logsum += log(sp);
		rp->nsp++;
		for (size_t p = 0; p < NP; p++)
			if (sp > fast_p(p))
				rp->fast[p]++;
	}
	struct strbuf cs = STRBUF_INIT;
	const char *gk;
	json_t *gv;
	json_object_foreach(counts, gk, gv) {
		strbuf_addf(&cs, "%s%s %lld", cs.len ? ", " : "", gk, (long long)json_integer_value(gv));
		json_object_set_new(rp->totals, gk, json_integer(json_integer_value(json_object_get(rp->totals, gk)) +
								 json_integer_value(gv)));
	}
	char atb[32] = "-", ats[32] = "-";
	if (!isnan(at))
		snprintf(atb, sizeof atb, "%.3f", at / 1000.0);
	if (!isnan(sp_at))
		snprintf(ats, sizeof ats, "%.3fx%s", sp_at, sp_at < 1.0 ? " *" : "");
	rp->nbelow += !isnan(sp_at) && sp_at < 1.0;
	char bb[32] = "-", ob[32] = "-", sb[32] = "-";
	if (!isnan(base))
		snprintf(bb, sizeof bb, "%.3f", base / 1000.0);
	if (!isnan(opt))
		snprintf(ob, sizeof ob, "%.3f", opt / 1000.0);
	if (!isnan(sp))
		snprintf(sb, sizeof sb, "%.3fx", sp);
	strbuf_addf(&rp->md, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f |", s->path,
		    json_string_value(json_object_get(st, "variant")) ? json_string_value(json_object_get(st, "variant")) : "-",
		    bb, atb, ob, sb, ats, verdict ? verdict : "-", cs.len ? cs.buf : "-", gpu_min);
	cell(&rp->md, bound / 1000.0, " %.3f |");
	cell(&rp->md, opt / bound, " %.2fx |");
	cell(&rp->md, at_ceiling, " %.2fx |");
	strbuf_addch(&rp->md, '\n');
	strbuf_release(&cs);
}

/* the geomeans, fast_p and the sections after the model table; report.json's document */
static json_t *report_summary(struct report *rp, size_t nm, double *geo)
{
	struct strbuf *md = &rp->md;
	*geo = rp->nsp ? exp(rp->logsum / (double)rp->nsp) : NAN;
	double geo_at = rp->nat ? exp(rp->at_logsum / (double)rp->nat) : NAN;
	size_t nf = json_array_size(rp->failed);
	size_t nnone = nm - rp->nsp - nf; /* built, but no speedup to claim */
	if (rp->nsp && !nf)
		strbuf_addf(md, "\nGeometric mean speedup: %.3fx over %zu model%s.\n", *geo, rp->nsp, kopt_plural(rp->nsp));
	else if (rp->nsp)
		strbuf_addf(md, "\nGeometric mean speedup: %.3fx over %zu model%s with a result (those that failed are "
				"listed below).\n", *geo, rp->nsp, kopt_plural(rp->nsp));
	else if (nf && !nnone)
		strbuf_addf(md, "\nNo model has a result, so no geometric mean (%zu failed: listed below).\n", nf);
	else
		strbuf_addstr(md, "\nGeometric mean speedup: none, no model has a speedup to claim.\n");
	if (nnone)
		strbuf_addf(md, "%zu model%s without one: %s compiled baseline failed its check against eager "
				"(below).\n", nnone, kopt_plural(nnone), nnone == 1 ? "its" : "their");
	if (rp->nat)
		strbuf_addf(md, "Geometric mean speedup over max-autotune-no-cudagraphs: %.3fx over the %zu %s that "
				"variant.\n", geo_at, rp->nat, rp->nat == 1 ? "model that has" : "models that have");
	double geo_bound = rp->nbound ? exp(rp->bound_logsum / (double)rp->nbound) : NAN;
	if (rp->nbound)
		strbuf_addf(md, "Geometric mean of max-autotune's time over the bound: %.3fx over the %zu %s that variant "
				"and a bound.\n", geo_bound, rp->nbound, rp->nbound == 1 ? "model that has" : "models that have");
	if (rp->nbelow)
		strbuf_addstr(md, "\n\\* Behind the max-autotune variant by less than gamma: a variant is chosen over an "
				  "earlier one only when faster by gamma (inside the noise a compile option is no win, and "
				  "max-autotune compiles slower), so the earlier variant's code is kept.\n");
	json_t *fp = json_object();
	strbuf_addstr(md, "\n| p | fast_p |\n| ---: | ---: |\n");
	for (size_t p = 0; p < NP; p++) {
		char key[16];
		snprintf(key, sizeof key, "%g", fast_p(p));
		double f = nm ? (double)rp->fast[p] / (double)nm : 0;
		json_object_set_new(fp, key, json_real(f));
		strbuf_addf(md, "| %s | %.3f |\n", key, f);
	}
	if (rp->bmd.len)
		strbuf_addf(md, "\n## Compiled baseline disagrees with eager\n\n"
				"Models whose compiled code (the first variant) does not compute what eager PyTorch "
				"computes, checked on the gates' seeds and against the float64 reference where they "
				"differ: wrong-baseline where eager matches float64 and the compile does not, "
				"ill-conditioned where neither does. They are reported, not optimized, and no speedup "
				"is claimed for them.\n\n| model | verdict | why |\n| --- | --- | --- |\n%s", rp->bmd.buf);
	if (rp->cmd.len) {
		double total = 0;
		for (int k = 0; k < NCOST; k++)
			total += rp->cost[k];
		strbuf_addf(md, "\n## GPU time\n\n"
				"GPU-minutes the workers spent on each model's steps, by kind (a step found in the cache "
				"counts the time it took when it ran; a stitch answered from its memo, the time its "
				"requests took when measured; captures that compiled side by side on one GPU split the "
				"time they shared).\n\n| model |");
		gpu_time_columns(md, rp, NULL, NULL);
		strbuf_addstr(md, " all |\n| --- |");
		gpu_time_columns(md, rp, "---:", NULL);
		strbuf_addf(md, " ---: |\n%s| all |", rp->cmd.buf);
		gpu_time_columns(md, rp, NULL, rp->cost);
		strbuf_addf(md, " %.1f |\n", rule_tenth_minutes(total));
	}
	if (rp->rmd.len)
		strbuf_addf(md, "\n## Bounds\n\n"
				"Each variant's bound (its profile): its Triton kernels at the measured copy bandwidth or "
				"FP32 peak, whichever binds (bytes: their arguments' sizes, one read and written in place "
				"twice; FLOPs: counted in their source, a lower bound), its vendor kernels at their "
				"measured times, and its host's time (the model's time less its kernels'); its baseline "
				"and optimized times over it.\n\n"
				"| model | variant | bound (us) | of it, host (us) | baseline (us) | over bound | optimized (us) "
				"| over bound |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n%s", rp->rmd.buf);
	if (rp->smd.len)
		strbuf_addf(md, "\n## Implementation space\n\n"
				"Models that run faster eagerly than compiled (the first variant's profile, side by side; "
				"device time per call, first kernel to last, where the profile has it, else CUDA-event "
				"time, which includes the host's overhead before the first kernel): "
				"ATen's kernels beat Inductor's there.\n\n%s%s", rule_space_header, rp->smd.buf);
	if (rp->hmd.len)
		strbuf_addf(md, "\n## Host time\n\n"
				"Models where a fifth or more of a call is the host's (the first variant's profile, and "
				"the chosen variant's where it is another: CUDA-event time per call less the time its "
				"kernels run, their times summed): Python, Inductor's wrapper, the launches and the GPU "
				"idle between kernels while the host launches the next. Faster kernels do "
				"not shorten it; a CUDA graph does, where the caller's inputs keep their addresses from "
				"call to call (kopt(5), cudagraphs=\"static\"). Where the first variant's call or the "
				"chosen one's is mostly the host's, the speedup per call moves with the host's time, "
				"which differs from process to process; the speedup in device time (each call queued "
				"behind a GPU spin, its kernels back to back: the first variant's over the chosen "
				"one's, less what its winners saved) does not, and is what a deployment reproduces "
				"(report.json: device_speedup, device_speedup_vs_max_autotune).\n\n"
				"| model | variant | model (us) | kernels (us) | host | speedup, device time |\n"
				"| --- | --- | ---: | ---: | ---: | ---: |\n%s",
				rp->hmd.buf);
	if (rp->vmd.len)
		strbuf_addf(md, "\n## Vendor calls\n\n"
				"Each GEMM and convolution as torch runs it, against the algorithms cuBLASLt's or cuDNN's "
				"own heuristic ranks first at that shape, timed alike (kernel time, L2 flushed, median).\n\n"
				"%s%s", rule_vendor_header, rp->vmd.buf);
	if (nf)
		strbuf_addf(md, "\n## Failed\n\n"
				"Models whose build failed; the build went on without them (-k). fast_p counts them as "
				"not faster. Their files from an earlier build in the output folder are marked stale.\n\n"
				"| model | failed step | reason |\n| --- | --- | --- |\n%s", rp->fmd.buf);
	json_t *doc = json_pack("{s:s, s:O, s:o, s:O, s:O}", "target", rp->target, "models", rp->models,
				"fast_p", fp, "verdicts", rp->totals, "failed", rp->failed);
	json_t *gs = json_object();
	for (int k = 0; k < NCOST; k++)
		if (k != COST_SCREEN || rp->screened)
			json_object_set_new(gs, cost_kinds[k], json_real(rule_tenth_minutes(rp->cost[k])));
	json_object_set_new(doc, "gpu_minutes_by_step", gs);
	json_object_set_new(doc, "geomean_speedup", rule_num_json(*geo));
	json_object_set_new(doc, "geomean_speedup_vs_max_autotune", rule_num_json(geo_at));
	json_object_set_new(doc, "geomean_max_autotune_over_bound", rule_num_json(geo_bound));
	json_object_set_new(doc, "measured", rule_measured_json(rp->newest));
	return doc;
}

/* report.json, report.md, speedup.svg (a bar per model, the geomean) and
 * roofline.svg (the kernels); 0 or -1 */
static int report_outputs(struct rule_run *run, struct report *rp, json_t *doc, size_t nm, double geo)
{
	char *js = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	char *rel = xasprintf("%s/report.json", rp->target);
	int r = rule_output(run, rel, js, strlen(js));
	free(rel);
	free(js);
	rel = xasprintf("%s/report.md", rp->target);
	if (rule_output(run, rel, rp->md.buf, rp->md.len) < 0)
		r = -1;
	free(rel);
	char *title = xasprintf("%s: speedup over torch.compile and over max-autotune", rp->target);
	struct bars_ctx bc = { title, rp->bars, nm, geo, rp->nat ? exp(rp->at_logsum / (double)rp->nat) : NAN };
	svg_output(run, rp->target, "speedup.svg", &r, draw_bars, &bc);
	free(title);
	title = xasprintf("%s: hot Triton kernels under the device's roofs", rp->target);
	struct roof_ctx rc = { title, rp->pts, rp->npts, isnan(rp->peak) ? 0 : rp->peak, isnan(rp->fpeak) ? 0 : rp->fpeak };
	svg_output(run, rp->target, "roofline.svg", &r, draw_roof, &rc);
	free(title);
	return r;
}

/* model i of the report failed (-k): a row with the step that failed and why */
static void report_failed(struct report *rp, uint32_t i, const struct dag_node *s)
{
	const struct dag_node *f = rule_failure_of(s);
	const char *why = f->why ? f->why : "failed";
	struct strbuf step = STRBUF_INIT;
	dag_describe(f, &step);
	json_array_append_new(rp->failed, json_pack("{s:s, s:s, s:s}", "model", s->path, "step", step.buf,
						    "reason", why));
	strbuf_addf(&rp->fmd, "| %s | %s | ", s->path, step.buf);
	for (const char *c = why; *c; c++) /* a table cell: no bar, no line break */
		strbuf_addstr(&rp->fmd, *c == '|' ? "\\|" : *c == '\n' ? " " : (char[2]){ *c, 0 });
	strbuf_addstr(&rp->fmd, " |\n");
	strbuf_release(&step);
	rp->bars[i].label = s->path;
	rp->bars[i].value = rp->bars[i].value2 = NAN;
	rp->bars[i].note = "failed";
}

/* the closing line koptmake prints after a build (report_closing) */
static char *closing_line(struct rule_run *run, const struct report *rp, size_t nm, double geo)
{
	struct strbuf sb = STRBUF_INIT;
	size_t nf = json_array_size(rp->failed);
	strbuf_addf(&sb, "%s: %zu model%s: %zu optimized, %zu baseline kept", rp->target, nm, kopt_plural(nm),
		    rp->noptimized, rp->nbaseline);
	if (nf)
		strbuf_addf(&sb, ", %zu failed", nf);
	if (rp->nsp)
		strbuf_addf(&sb, "; geomean %.3fx over torch.compile", geo);
	const char *od = run->dag->out_dir;
	strbuf_addf(&sb, "; %s/%s/report.md", strncmp(od, "./", 2) == 0 && od[2] ? od + 2 : od, rp->target);
	return strbuf_detach(&sb);
}

static int report_start(struct rule_run *run)
{
	struct dag_node *n = run->node;
	if (n->ndeps == 0)
		return rule_fail(run, "target '%s' has no models, so nothing to report (a glob that matched no file?)",
				 rule_target_of(n)->name);
	struct report rp;
	report_init(&rp, rule_target_of(n)->name, n->ndeps);
	for (uint32_t i = 0; i < n->ndeps; i++)
		rp.screened |= rule_screen_any(rule_model_of(n->deps[i].node));
	for (uint32_t i = 0; i < n->ndeps; i++) {
		struct dag_node *s = n->deps[i].node;
		if (s->flags & DAG_FAILED) {
			report_failed(&rp, i, s);
			continue;
		}
		json_t *r = dag_result(run->dag, s);
		if (!r) {
			report_release(&rp);
			return rule_fail(run, "the stitch result of %s is missing from the cache", s->path);
		}
		report_model(run->dag, &rp, i, s, r);
	}
	double geo;
	json_t *doc = report_summary(&rp, n->ndeps, &geo);
	rule_report_shapes(n, doc, &rp.md); /* the models served at several shapes */
	report_head(&rp, n->ndeps);
	int r = report_outputs(run, &rp, doc, n->ndeps, geo);
	run->stable = json_pack("{s:s, s:O}", "target", rp.target, "models", rp.stable);
	run->meas = json_pack("{s:O, s:O}", "geomean_speedup", json_object_get(doc, "geomean_speedup"),
			      "fast_p", json_object_get(doc, "fast_p"));
	char *line = closing_line(run, &rp, n->ndeps, geo);
	json_object_set_new(run->meas, "line", json_string(line));
	free(line);
	json_decref(doc);
	report_release(&rp);
	if (r < 0)
		return rule_fail(run, "cannot write the report");
	return RULE_DONE;
}

/* version 12: host_bound is either call's share (the first variant's or
 * the chosen one's), and the device speedups divide queued calls' times */
const struct rule rule_report = {
	.name = "report", .version = 12, .worker = false, .timing = false,
	.restore = rule_restore_outputs,
	.key = report_key, .start = report_start,
};
