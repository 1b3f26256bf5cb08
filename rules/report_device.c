/*
 * rules/report_device.c: each model's speedups in device time, beside the
 * report's per-call ones (rules/report.c): the profiles' device times per
 * call (each call queued behind a GPU spin, its kernels back to back) of
 * the first variant, of max-autotune's and of the chosen one less what its
 * winners saved (report.json: device_speedup,
 * device_speedup_vs_max_autotune).
 */
#include <config.h>

#include <math.h>
#include <string.h>

#include "plan.h"
#include "report.h"
#include "space.h"
#include "common.h"

/* the profile of the variant the stitch's entry names, or NULL */
static const json_t *meas_named(const struct rule_model *dm, const json_t **meas, const json_t *entry)
{
	const char *name = json_string_value(json_object_get(entry, "name"));
	for (size_t v = 0; name && v < dm->nmv; v++)
		if (strcmp(dm->mvs[v].variant->name, name) == 0)
			return meas[v];
	return NULL;
}

/* device time per call of a stitch's variant entry: its profile's
 * (queued_ns_per_call: the call queued behind a spin, so that the host's
 * launches leave no gaps between its kernels), for the chosen entry (opt)
 * less what its winners saved: the stitch's own times, the host's part
 * held, so the saving is the kernels' (a variant without winners has the
 * same time for both, so nothing). NAN unknown, or not above 0 (a call
 * that runs no kernel has no device time to divide by). */
static double variant_device_ns(const struct rule_model *dm, const json_t **meas, const json_t *entry, bool opt)
{
	double dns = rule_num(meas_named(dm, meas, entry), "queued_ns_per_call");
	if (opt)
		dns -= rule_num(entry, "stitch_base_ns") - rule_num(entry, "stitch_opt_ns");
	return dns > 0 ? dns : NAN;
}

/* The speedups in device time (the profiles' queued calls), beside the
 * report's, which are CUDA-event times per call from an idle GPU and
 * carry the host's time before and between the kernels. Where a call is
 * mostly the host's, the event figure moves with the host's speed from
 * process to process and machine to machine (a compiled call of one 3-us
 * kernel took 89 us in one process on the H200's host and 130 us in
 * another, bench/results/2026-12-02-h200-host/), and so does a span from
 * the first kernel to the last, which holds the gaps where the GPU waited
 * for the host's launches (EfficientNetB2's first variant: 2.317x in one
 * report, 3.168x in the next, 1.590x queued in its deployment,
 * bench/results/2026-12-06d-h100-level3-twelve/). The queued figure is
 * what a deployment reproduces (tests/gpu/deploy.py checks it for those
 * models); the report's own speedups stay the event figures. A
 * model whose baseline was withheld (wrong, ill-conditioned) claims none.
 * (variant_device_ns is positive or NAN, so a quotient with an unknown
 * time is NAN, null in JSON.) */
void rule_report_device_speedups(const struct dag_node *s, const json_t **meas, const json_t *me, json_t *o)
{
	const struct rule_model *dm = rule_model_of(s);
	const char *chosen = json_string_value(json_object_get(o, "variant"));
	const char *verdict = json_string_value(json_object_get(o, "verdict"));
	json_t *vars = json_object_get(me, "variants");
	const json_t *first = json_array_get(vars, 0), *pick = NULL, *at = rule_report_autotune_variant(s, me);
	size_t i;
	json_t *v;
	json_array_foreach(vars, i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		if (name && chosen && strcmp(name, chosen) == 0)
			pick = v;
	}
	double base = variant_device_ns(dm, meas, first, false), opt = NAN;
	if (verdict && strcmp(verdict, "optimized") == 0)
		opt = variant_device_ns(dm, meas, pick, true);
	else if (verdict && strcmp(verdict, "baseline") == 0)
		opt = base;
	double atd = at ? variant_device_ns(dm, meas, at, false) : NAN;
	json_object_set_new(o, "device_speedup", rule_num_json(base / opt));
	json_object_set_new(o, "device_speedup_vs_max_autotune", rule_num_json(atd / opt));
}
